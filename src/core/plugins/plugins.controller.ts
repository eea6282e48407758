import { Controller, Get, Inject, Req } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { Authenticated } from '../auth/decorators';
import { NotFoundError, PermissionDeniedError } from '../resource/errors';
import { ResourceRegistry } from '../resource/registry';
import { listPath } from '../resource/definition';
import { baseUrl, NkRequest } from '../http/request';
import { LOADED_PLUGINS } from './plugins.module';
import type { NetkeelPlugin } from './plugin';

/**
 * The plugins' part of the API, as Nautobot 2.x names it: `/api/plugins/` and `/api/apps/` (the
 * list of installed plugins, then each plugin's API root), `/api/plugins/installed-plugins/` and
 * `/api/apps/installed-apps/` (what is installed; staff only, as the reference's IsAdminUser),
 * and each plugin's root `/api/plugins/<base_url>/` listing its models.
 */
@Controller('api')
export class PluginsController {
  constructor(
    @Inject(LOADED_PLUGINS) private readonly plugins: NetkeelPlugin[],
    private readonly registry: ResourceRegistry,
  ) {}

  private roots(req: NkRequest, first: [string, string]) {
    const base = baseUrl(req);
    return Object.fromEntries([first, ...this.plugins.map((p) => [p.baseUrl, `${base}/api/plugins/${p.baseUrl}/`])]);
  }

  private installed(req: NkRequest) {
    const user = req.principal?.user;
    if (!user?.is_superuser && !user?.is_staff) throw new PermissionDeniedError('You do not have permission to perform this action.');
    return this.plugins.map((p) => ({
      name: p.verboseName,
      package: p.package,
      author: p.author ?? '',
      author_email: p.authorEmail ?? '',
      description: p.description ?? '',
      version: p.version,
      home_url: null,
      config_url: null,
      docs_url: null,
    }));
  }

  @Get('plugins')
  @ApiExcludeEndpoint()
  @Authenticated()
  pluginsRoot(@Req() req: NkRequest) {
    return this.roots(req, ['installed-plugins', `${baseUrl(req)}/api/plugins/installed-plugins/`]);
  }

  @Get('apps')
  @ApiExcludeEndpoint()
  @Authenticated()
  appsRoot(@Req() req: NkRequest) {
    return this.roots(req, ['installed-apps', `${baseUrl(req)}/api/apps/installed-apps/`]);
  }

  @Get('plugins/installed-plugins')
  @Authenticated()
  installedPlugins(@Req() req: NkRequest) {
    return this.installed(req);
  }

  @Get('apps/installed-apps')
  @Authenticated()
  installedApps(@Req() req: NkRequest) {
    return this.installed(req);
  }

  @Get('plugins/:plugin')
  @ApiExcludeEndpoint()
  @Authenticated()
  pluginRoot(@Req() req: NkRequest) {
    const plugin = this.plugins.find((p) => p.baseUrl === req.params.plugin);
    if (!plugin) throw new NotFoundError();
    const base = baseUrl(req);
    const defs = this.registry.all().filter((d) => d.apiBase === `plugins/${plugin.baseUrl}`);
    return Object.fromEntries(defs.map((d) => [d.slug, `${base}${listPath(d)}`]).sort(([a], [b]) => a.localeCompare(b)));
  }
}
