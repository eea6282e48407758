import { Controller, Get, Inject, Req } from '@nestjs/common';
import { SETTINGS } from '../../config/settings.module';
import { databaseKind, Settings } from '../../config/settings';
import { Db } from '../../database/db';
import { raw } from '../../database/sql';
import { NAUTOBOT_VERSION, NETKEEL_VERSION } from '../../version';
import { Authenticated } from '../auth/decorators';
import { ResourceRegistry } from '../resource/registry';
import { NotFoundError } from '../resource/errors';
import { baseUrl, NkRequest } from './request';

/** The API root, one root per app, and the status endpoint. */
@Controller('api')
export class RootController {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly db: Db,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  @Get()
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
      'nautobot-apps': {},
      'nautobot-version': NAUTOBOT_VERSION,
      'netkeel-version': NETKEEL_VERSION,
      'node-version': process.version.replace(/^v/, ''),
      'plugins': {},
    };
  }

  @Get(':app')
  @Authenticated()
  appRoot(@Req() req: NkRequest) {
    const app = String(req.params.app);
    const defs = this.registry.forApp(app);
    if (!defs.length) throw new NotFoundError();
    const base = baseUrl(req);
    return Object.fromEntries(
      defs
        .map((d) => d.slug)
        .sort()
        .map((slug) => [slug, `${base}/api/${app}/${slug}/`]),
    );
  }
}
