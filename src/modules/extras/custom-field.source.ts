import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { SETTINGS } from '../../config/settings.module';
import type { Settings } from '../../config/settings';
import type { RequestContext } from '../../core/context';
import type { CustomFieldDefinition, CustomFieldSource } from '../../core/resource/custom-fields';
import { ResourceRegistry } from '../../core/resource/registry';
import { ident, sql } from '../../database/sql';
import { toDefinition } from './resources/custom-field.resource';
import { append } from '../../core/collections';

let version = 0;

/** Called by every custom field and choice write: this process reloads at once. */
export function customFieldsChanged(): void {
  version++;
}

/**
 * Custom fields with their choices, by content type: one statement, cached for a moment so a
 * list request does not pay for definitions that almost never change.
 */
@Injectable()
export class ExtrasCustomFieldSource implements CustomFieldSource, OnModuleInit {
  private cached: { at: number; version: number; value: Map<string, CustomFieldDefinition[]> } | null = null;

  private readonly ttlMs: number;

  constructor(
    private readonly registry: ResourceRegistry,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.ttlMs = settings.DEFINITION_CACHE_SECONDS * 1000;
  }

  onModuleInit(): void {
    this.registry.customFieldSource = this;
  }

  async byType(ctx: RequestContext): Promise<Map<string, CustomFieldDefinition[]>> {
    const c = this.cached;
    if (c && c.version === version && Date.now() - c.at < this.ttlMs) return c.value;
    const started = version;
    const value = await this.load(ctx);
    this.cached = { at: Date.now(), version: started, value };
    return value;
  }

  private async load(ctx: RequestContext): Promise<Map<string, CustomFieldDefinition[]>> {
    const rows = await ctx.db.query(
      sql`SELECT cf.*, ct.${ident('content_type')} AS content_type, ch.${ident('value')} AS choice_value
          FROM ${ident('extras_customfield')} cf
          JOIN ${ident('extras_customfield_content_types')} ct ON ct.${ident('customfield_id')} = cf.${ident('id')}
          LEFT JOIN ${ident('extras_customfieldchoice')} ch ON ch.${ident('custom_field_id')} = cf.${ident('id')}
          ORDER BY cf.${ident('weight')}, cf.${ident('label')}, ch.${ident('weight')}, ch.${ident('value')}`,
    );
    const fields = new Map<string, { row: Record<string, unknown>; choices: Set<string>; types: Set<string> }>();
    for (const r of rows) {
      const entry = fields.get(String(r.id)) ?? { row: r, choices: new Set<string>(), types: new Set<string>() };
      if (r.choice_value !== null && r.choice_value !== undefined) entry.choices.add(String(r.choice_value));
      entry.types.add(String(r.content_type));
      fields.set(String(r.id), entry);
    }
    const out = new Map<string, CustomFieldDefinition[]>();
    for (const e of fields.values()) {
      const def = toDefinition(e.row, [...e.choices]);
      for (const t of e.types) append(out, t, def);
    }
    return out;
  }
}
