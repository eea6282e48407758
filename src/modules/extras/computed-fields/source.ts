import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { SETTINGS } from '../../../config/settings.module';
import type { Settings } from '../../../config/settings';
import type { RequestContext } from '../../../core/context';
import { ResourceRegistry } from '../../../core/resource/registry';
import { append } from '../../../core/collections';
import { Db } from '../../../database/db';
import type { WatchedCache } from '../../../database/watched-cache';
import { ident, sql } from '../../../database/sql';
import { definitionCache } from '../../../core/resource/definition-cache';

/** What rendering needs of one computed field. */
export interface ComputedFieldDefinition {
  key: string;
  template: string;
  fallback: string;
}

/** The key the source is registered under with the registry (`registry.provide`). */
export const COMPUTED_FIELD_SOURCE = 'extras.computed-field-source';

/**
 * Computed fields by content type, in the reference's order (weight, key): one statement, kept
 * between requests in a `WatchedCache` of their table exactly as custom field definitions are
 * (custom-fields/source.ts says how it stays true).
 */
@Injectable()
export class ExtrasComputedFieldSource implements OnModuleInit {
  private readonly cache: WatchedCache<'all', Map<string, ComputedFieldDefinition[]>>;

  constructor(
    private readonly registry: ResourceRegistry,
    db: Db,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.cache = definitionCache(db, registry, settings, ['extras.computedfield']);
  }

  onModuleInit(): void {
    this.registry.provide(COMPUTED_FIELD_SOURCE, this);
  }

  async byType(ctx: RequestContext): Promise<Map<string, ComputedFieldDefinition[]>> {
    return (await this.cache.get('all', () => this.load(ctx)))!;
  }

  private async load(ctx: RequestContext): Promise<Map<string, ComputedFieldDefinition[]>> {
    const rows = await ctx.db.query<{ content_type: string; key: string; template: string; fallback_value: string | null }>(
      sql`SELECT ${ident('content_type')}, ${ident('key')}, ${ident('template')}, ${ident('fallback_value')}
          FROM ${ident('extras_computedfield')} ORDER BY ${ident('weight')}, ${ident('key')}`,
    );
    const out = new Map<string, ComputedFieldDefinition[]>();
    for (const r of rows) append(out, String(r.content_type), { key: String(r.key), template: String(r.template ?? ''), fallback: String(r.fallback_value ?? '') });
    return out;
  }
}

/** The computed fields of a content type; all of them are loaded once per request (or served from the cache). */
export async function computedFieldsFor(ctx: RequestContext, objectType: string): Promise<ComputedFieldDefinition[]> {
  const source = ctx.registry.service<ExtrasComputedFieldSource>(COMPUTED_FIELD_SOURCE);
  if (!source) return [];
  const all = await ctx.memo('computed-fields', () => source.byType(ctx));
  return all.get(objectType) ?? [];
}
