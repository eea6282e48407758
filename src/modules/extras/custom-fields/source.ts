import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { SETTINGS } from '../../../config/settings.module';
import type { Settings } from '../../../config/settings';
import type { RequestContext } from '../../../core/context';
import { CUSTOM_FIELD_SOURCE, CustomFieldDefinition, CustomFieldSource } from './definitions';
import { ResourceRegistry } from '../../../core/resource/registry';
import { Db } from '../../../database/db';
import type { WatchedCache } from '../../../database/watched-cache';
import { ident, sql } from '../../../database/sql';
import { toDefinition } from '../resources/custom-field.resource';
import { append } from '../../../core/collections';
import { definitionCache } from '../../../core/resource/definition-cache';

/**
 * Custom fields with their choices, by content type: one statement, kept between requests so a
 * list does not pay for definitions that almost never change.
 *
 * Kept in a `WatchedCache` of their three tables: dropped whenever a statement of this process
 * may have changed them, before it runs and again once its transaction ended, so a request sees
 * what an earlier one committed even when a read raced the write; another process's change is
 * heard through PostgreSQL's notifications while the feed is trusted. What was read while
 * changes could go unheard (MySQL, a listener that is down) is kept DEFINITION_CACHE_SECONDS.
 */
@Injectable()
export class ExtrasCustomFieldSource implements CustomFieldSource, OnModuleInit {
  private readonly cache: WatchedCache<'all', Map<string, CustomFieldDefinition[]>>;

  constructor(
    private readonly registry: ResourceRegistry,
    db: Db,
    @Inject(SETTINGS) settings: Settings,
  ) {
    // The tables definitions are read from, as declared (`watched`: each has its change triggers).
    this.cache = definitionCache(db, registry, settings, ['extras.customfield', 'extras.customfieldchoice']);
  }

  onModuleInit(): void {
    this.registry.provide(CUSTOM_FIELD_SOURCE, this);
  }

  async byType(ctx: RequestContext): Promise<Map<string, CustomFieldDefinition[]>> {
    return (await this.cache.get('all', () => this.load(ctx)))!;
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
