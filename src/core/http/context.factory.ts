import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock, SETTINGS } from '../../config/settings.module';
import type { Settings } from '../../config/settings';
import { Db } from '../../database/db';
import { PermissionService } from '../auth/permission.service';
import { ANONYMOUS, RequestContext } from '../context';
import { ResourceRegistry } from '../resource/registry';
import { DEFAULT_VERSION } from './versioning';
import { baseUrl, NkRequest } from './request';

/** Builds the RequestContext of a request after the guard authenticated it. */
@Injectable()
export class ContextFactory {
  constructor(
    private readonly db: Db,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly registry: ResourceRegistry,
    private readonly permissions: PermissionService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  create(req: NkRequest): RequestContext {
    return new RequestContext(
      this.db,
      this.settings,
      this.registry,
      this.permissions,
      req.principal ?? ANONYMOUS,
      req.apiVersion ?? DEFAULT_VERSION,
      baseUrl(req),
      this.clock,
      req.requestId,
    );
  }

  /** A context for work outside a request (seeding, identity intake), acting as the system. */
  system(): RequestContext {
    const ctx = new RequestContext(
      this.db,
      this.settings,
      this.registry,
      { constraints: async () => null },
      { user: null, via: null, writeEnabled: true },
      DEFAULT_VERSION,
      `http://localhost:${this.settings.PORT}${this.settings.BASE_PATH}`,
      this.clock,
    );
    ctx.changeContext = { context: 'orm', detail: '' };
    return ctx;
  }
}
