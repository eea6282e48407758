import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { SETTINGS } from '../../../config/settings.module';
import type { Settings } from '../../../config/settings';
import type { RequestContext } from '../../../core/context';
import { ResourceRegistry } from '../../../core/resource/registry';
import { unscoped } from '../../../core/resource/query/rows';
import { Db } from '../../../database/db';
import type { WatchedCache } from '../../../database/watched-cache';
import { ident, sql } from '../../../database/sql';
import { RELATIONSHIP_SOURCE, RELATIONSHIP_TYPE, RelationshipInfo, RelationshipSource, toInfo } from './definitions';
import { definitionCache } from '../../../core/resource/definition-cache';

/**
 * Every relationship, kept between requests (as the custom field definitions are): a write of any
 * model asks which relationships it must check, and they almost never change. Kept in a
 * `WatchedCache` of the relationships' table: dropped when a statement of this process may have
 * changed it, and on another process's change heard through PostgreSQL's notifications; what was
 * read while changes could go unheard (MySQL) is kept DEFINITION_CACHE_SECONDS.
 */
@Injectable()
export class ExtrasRelationshipSource implements RelationshipSource, OnModuleInit {
  private readonly cache: WatchedCache<'all', RelationshipInfo[]>;

  constructor(
    private readonly registry: ResourceRegistry,
    db: Db,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.cache = definitionCache(db, registry, settings, [RELATIONSHIP_TYPE]);
  }

  onModuleInit(): void {
    this.registry.provide(RELATIONSHIP_SOURCE, this);
  }

  async all(ctx: RequestContext): Promise<RelationshipInfo[]> {
    return (await this.cache.get('all', () => this.load(ctx)))!;
  }

  private async load(ctx: RequestContext): Promise<RelationshipInfo[]> {
    const def = this.registry.get(RELATIONSHIP_TYPE)!;
    // Definitions, not data: every request applies every relationship, whoever may list them.
    const rows = await ctx.db.query(sql`SELECT * ${unscoped(def).from()} ORDER BY ${ident('label')}`);
    return rows.map(toInfo);
  }
}
