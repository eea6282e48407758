import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { SETTINGS } from '../../../config/settings.module';
import type { Settings } from '../../../config/settings';
import type { RequestContext } from '../../../core/context';
import { ResourceRegistry } from '../../../core/resource/registry';
import { Db, Executor } from '../../../database/db';
import type { WatchedCache } from '../../../database/watched-cache';
import { Catalogue, loadCatalogue } from './render';
import { definitionCache } from '../../../core/resource/definition-cache';

/** The key the source is registered under with the registry (`registry.provide`). */
export const CONTEXT_CATALOGUE_SOURCE = 'extras.config-context-catalogue';

/**
 * The active config contexts and the dimensions each names (render.ts `Catalogue`), kept between
 * requests in a `WatchedCache` of the contexts' table and link tables, as custom field
 * definitions are (custom-fields/source.ts says how it stays true): a page's render then reads
 * only which of its objects' values the links name.
 */
@Injectable()
export class ConfigContextCatalogueSource implements OnModuleInit {
  private readonly cache: WatchedCache<'all', Catalogue>;

  constructor(
    private readonly registry: ResourceRegistry,
    db: Db,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.cache = definitionCache(db, registry, settings, ['extras.configcontext']);
  }

  onModuleInit(): void {
    this.registry.provide(CONTEXT_CATALOGUE_SOURCE, this);
  }

  async get(ctx: RequestContext): Promise<Catalogue> {
    return (await this.cache.get('all', () => loadCatalogue(ctx.db, this.registry)))!;
  }
}

/** The catalogue, once per request: from the cached source, or read where there is none (an app without the extras module's providers). */
export function catalogueFor(ctx: RequestContext, exec: Executor): Promise<Catalogue> {
  return ctx.memo('config-context-catalogue', () => {
    const source = ctx.registry.service<ConfigContextCatalogueSource>(CONTEXT_CATALOGUE_SOURCE);
    return source ? source.get(ctx) : loadCatalogue(exec, ctx.registry);
  });
}
