import { Controller, Get, Inject, Req } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { SETTINGS } from '../../config/settings.module';
import { databaseKind, Settings } from '../../config/settings';
import { Db } from '../../database/db';
import { ident, join, raw, sql } from '../../database/sql';
import { NAUTOBOT_VERSION, NETKEEL_VERSION } from '../../version';
import { Authenticated } from '../auth/decorators';
import { ResourceRegistry } from '../resource/registry';
import { objectType, ResourceDefinition } from '../resource/definition';
import { scopeConstraints, visibleRows } from '../resource/query/scope';
import { ContextFactory } from './context.factory';
import { NotFoundError } from '../resource/errors';
import { baseUrl, NkRequest } from './request';
import { LOADED_PLUGINS } from '../plugins/plugins.module';
import type { NetkeelPlugin } from '../plugins/plugin';

/** The API root, one root per app, the status endpoint and the home page's counts. */
@Controller('api')
export class RootController {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly db: Db,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly contexts: ContextFactory,
    @Inject(LOADED_PLUGINS) private readonly plugins: NetkeelPlugin[],
  ) {}

  // The roots only list links: the document leaves them out, as the reference's does.
  @Get()
  @ApiExcludeEndpoint()
  @Authenticated()
  root(@Req() req: NkRequest) {
    const base = baseUrl(req);
    const entries = [...this.registry.apps(), 'status'].sort().map((app) => [app, `${base}/api/${app}/`]);
    return Object.fromEntries(entries);
  }

  @Get('status')
  @Authenticated()
  async status() {
    const [{ v }] = await this.db.query<{ v: string }>(raw('SELECT VERSION() AS v'));
    const apps = Object.fromEntries(this.registry.apps().map((a) => [`netkeel.${a}`, NETKEEL_VERSION]));
    return {
      'database': { kind: databaseKind(this.settings), version: String(v).split(' on ')[0] },
      'installed-apps': apps,
      'nautobot-apps': Object.fromEntries(this.plugins.map((p) => [p.package, p.version])),
      'nautobot-version': NAUTOBOT_VERSION,
      'netkeel-version': NETKEEL_VERSION,
      'node-version': process.version.replace(/^v/, ''),
      'plugins': Object.fromEntries(this.plugins.map((p) => [p.package, p.version])),
    };
  }

  /**
   * The home page's counts: per app, each model the requester may view, with its list URL and
   * how many of its objects the requester may view. One statement for all of them.
   */
  @Get('home')
  @Authenticated()
  async home(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const viewable: ResourceDefinition[] = [];
    for (const def of this.registry.all()) {
      const constraints = await scopeConstraints(ctx, def, 'view');
      if (constraints === null || constraints.length) viewable.push(def);
    }
    const counts = new Map<string, number>();
    if (viewable.length) {
      const parts = await Promise.all(
        viewable.map(async (def) => sql`SELECT ${objectType(def)} AS ${ident('t')}, COUNT(*) AS ${ident('n')} ${(await visibleRows(ctx, ctx.db, def, 'h')).from()}`),
      );
      for (const r of await this.db.query<{ t: string; n: number }>(join(parts, ' UNION ALL '))) counts.set(r.t, Number(r.n));
    }
    const out: Record<string, { verbose_name_plural: string; url: string; count: number }[]> = {};
    for (const def of viewable) {
      (out[def.app] ??= []).push({ verbose_name_plural: def.verboseNamePlural, url: ctx.listUrl(def), count: counts.get(objectType(def)) ?? 0 });
    }
    return Object.fromEntries(Object.keys(out).sort().map((app) => [app, out[app].sort((a, b) => a.verbose_name_plural.localeCompare(b.verbose_name_plural))]));
  }

  @Get(':app')
  @ApiExcludeEndpoint()
  @Authenticated()
  appRoot(@Req() req: NkRequest) {
    const app = String(req.params.app);
    const defs = this.registry.forApp(app);
    if (!defs.length) throw new NotFoundError();
    const base = baseUrl(req);
    return Object.fromEntries(
      [...defs.map((d) => d.slug), ...this.registry.rootLinksOf(app)]
        .sort()
        .map((slug) => [slug, `${base}/api/${app}/${slug}/`]),
    );
  }
}
