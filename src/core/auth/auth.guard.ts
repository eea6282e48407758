import { CanActivate, ExecutionContext, Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { Response } from 'express';
import { Reflector } from '@nestjs/core';
import passport from 'passport';
import { BasicStrategy } from 'passport-http';
import { ANONYMOUS, AuthUser, Principal } from '../context';
import type { NkRequest } from '../http/request';
import { NotAuthenticatedError, PermissionDeniedError } from '../resource/errors';
import { objectType } from '../resource/definition';
import { CREDENTIAL_STORE, CredentialStore } from './auth.types';
import { actionOf, ROUTE_ACCESS, RouteAccess } from './decorators';
import { PermissionService } from './permission.service';
import { LoginThrottle } from './login-throttle';
import { RateLimiter } from './rate-limit';
import { SessionService } from './session.service';
import { UserStatusService } from './user-status';
import { CLOCK, Clock } from '../../config/settings.module';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The one place requests are authenticated and authorized (DESIGN rule 1): token, session
 * cookie, or HTTP Basic where a route allows it, then the model-level permission for the
 * route's action. Object-level scoping happens in the queries.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly basic: passport.Authenticator;

  constructor(
    private readonly reflector: Reflector,
    @Inject(CREDENTIAL_STORE) private readonly store: CredentialStore,
    private readonly permissions: PermissionService,
    private readonly throttle: LoginThrottle,
    private readonly rateLimit: RateLimiter,
    private readonly sessions: SessionService,
    private readonly userStatus: UserStatusService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.basic = new passport.Passport();
    this.basic.use(
      new BasicStrategy((username, password, done) => {
        this.store.byPassword(username, password).then((u) => done(null, u ?? false), done);
      }),
    );
  }

  canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    return this.check(http.getRequest<NkRequest>(), http.getResponse(), this.accessOf(context.getHandler(), context.getClass()));
  }

  /** How a route's handler is protected (its own metadata before its controller's); any logged-in user when neither says. */
  accessOf(handler: Function, controller: Function): RouteAccess {
    return this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [handler, controller]) ?? { kind: 'authenticated' };
  }

  /**
   * Authenticates and authorizes a request for a route protected by `access`: true, or throws.
   * Nest calls it through `canActivate`; the routes the route index dispatches itself
   * (core/http/direct-routes.ts) call it as it is.
   */
  async check(req: NkRequest, res: Response, access: RouteAccess): Promise<boolean> {
    const action = access.kind === 'resource' ? actionOf(access, req.method) : undefined;
    // A method the resource's route does not answer: as if there were no route (before authentication).
    if (access.kind === 'resource' && !action) throw new NotFoundException();
    const allowBasic =
      (access.kind === 'resource' && action !== 'options' && (access.def.basicAuth ?? []).includes(action as 'add')) ||
      (access.kind === 'permission' && !!access.basic);
    const principal = await this.authenticate(req, res, allowBasic);
    req.principal = principal;
    // A browsable-API form's method override: for a browser session only (its CSRF token is
    // checked below), never for a token or Basic credentials.
    if (req.form && principal.via !== 'session') {
      if (!principal.user) throw new NotAuthenticatedError();
      throw new PermissionDeniedError('HTML form submissions (_method, _content) are accepted from a logged-in browser session only.');
    }
    if (access.kind === 'public') return true;
    // Counted once authenticated, before permissions: a client refused by them still spends its rate.
    const limited = this.rateLimit.take(principal, req.ip ?? '', res);
    if (limited) await limited;
    if (principal.user && !SAFE.has(req.method)) {
      const reads = access.kind === 'authenticated' && access.reads;
      if (principal.via === 'token' && !principal.writeEnabled && !reads) throw new PermissionDeniedError();
      if (principal.via === 'session') this.sessions.checkCsrf(req);
    }
    if (access.kind === 'resource') {
      const type = objectType(access.def);
      if (action === 'options') {
        if (!principal.user) throw new NotAuthenticatedError();
        return true;
      }
      const constraints = await this.permissions.constraints(principal, type, action!);
      if (constraints !== null && !constraints.length) {
        if (!principal.user) throw new NotAuthenticatedError();
        throw new PermissionDeniedError();
      }
      return true;
    }
    if (!principal.user) throw new NotAuthenticatedError();
    if (access.kind === 'permission' && !(await this.permissions.has(principal, access.permission))) throw new PermissionDeniedError();
    return true;
  }

  private async authenticate(req: NkRequest, res: unknown, allowBasic: boolean): Promise<Principal> {
    const now = this.clock();
    const header = req.headers.authorization;
    if (header) {
      const [scheme, ...rest] = header.trim().split(/\s+/);
      if (scheme.toLowerCase() === 'token') {
        if (!rest.length) throw new NotAuthenticatedError('Invalid token header. No credentials provided.');
        if (rest.length > 1) throw new NotAuthenticatedError('Invalid token header. Token string should not contain spaces.');
        const address = req.ip ?? '';
        this.throttle.checkTokenAddress(address);
        const found = await this.store.byTokenKey(rest[0]);
        if (!found) {
          await this.throttle.tokenFailed(address);
          throw new NotAuthenticatedError('Invalid token');
        }
        if (found.token.expires && found.token.expires.getTime() < now.getTime()) throw new NotAuthenticatedError('Token expired');
        return { user: await this.active(found.user, now), via: 'token', writeEnabled: found.token.writeEnabled, tokenId: found.token.id };
      }
      if (scheme.toLowerCase() === 'basic' && allowBasic) {
        const user = await this.basicAuth(req, res);
        return { user: await this.active(user, now), via: 'basic', writeEnabled: true };
      }
    }
    const sessionUser = await this.sessions.userFor(req);
    if (sessionUser) return { user: await this.active(sessionUser, now), via: 'session', writeEnabled: true };
    return ANONYMOUS;
  }

  /**
   * The stored flag decides, and the registered user status providers too once the user's
   * `statusCheckAfter` has come (at the clock's now): no statement for the others.
   */
  private async active(user: AuthUser, now: Date): Promise<AuthUser> {
    if (!(await this.userStatus.isActive(user, now))) throw new NotAuthenticatedError('User inactive');
    return user.is_active ? user : { ...user, is_active: true };
  }

  private async basicAuth(req: NkRequest, res: unknown): Promise<AuthUser> {
    const username = decodeBasicUsername(req.headers.authorization ?? '');
    // Counted before the password is checked: parallel guesses cannot outrun the limit.
    const attempt = await this.throttle.attempt(username, req.ip ?? '');
    const user = await new Promise<AuthUser | false>((resolve, reject) => {
      this.basic.authenticate('basic', { session: false }, (err: unknown, u: AuthUser | false) => (err ? reject(err) : resolve(u)))(req, res, reject);
    });
    if (!user) throw new NotAuthenticatedError('Invalid username/password.');
    await attempt.succeeded();
    return user;
  }
}

function decodeBasicUsername(header: string): string {
  const b64 = header.trim().split(/\s+/)[1] ?? '';
  const text = Buffer.from(b64, 'base64').toString('utf8');
  const i = text.indexOf(':');
  return i === -1 ? text : text.slice(0, i);
}
