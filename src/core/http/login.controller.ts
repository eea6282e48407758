import { Controller, Get, Inject, Post, Req } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as cookie from 'cookie';
import { CREDENTIAL_STORE, CredentialStore } from '../auth/auth.types';
import { Public } from '../auth/decorators';
import { LoginThrottle } from '../auth/login-throttle';
import { CSRF_COOKIE, SessionService } from '../auth/session.service';
import { EventBrokers } from '../events/event-brokers';
import { publishUserEvents } from '../events/user-events';
import { TooManyRequestsError } from '../resource/errors';
import { ApiResponse } from './api-response';
import { ContextFactory } from './context.factory';
import { esc, HTML_CSP, page, STYLESHEET } from './html';
import { externalPath, NkRequest } from './request';

const LOGIN_CSRF = 'logincsrf';
const HTML_HEADERS = { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': HTML_CSP, 'X-Frame-Options': 'DENY', 'Cache-Control': 'no-store' };

/**
 * A redirect target after login: a path of this service only (never another site), as the client
 * sees it (under the external prefix).
 */
function safeNext(v: unknown, prefix: string): string {
  const s = typeof v === 'string' ? v : '';
  return /^\/(?![/\\])[^\s]*$/.test(s) && (s === `${prefix}/` || s.startsWith(`${prefix}/`)) ? s : `${prefix}/api/`;
}

const redirect = (to: string, cookies: string[] = []) => new ApiResponse(303, '', { Location: to, 'Set-Cookie': cookies, 'Cache-Control': 'no-store' });

/**
 * Cookie login for the browsable API. A double-submit token protects the login form itself,
 * and failed attempts are throttled like Basic credentials.
 */
@Controller()
export class LoginController {
  constructor(
    private readonly sessions: SessionService,
    private readonly throttle: LoginThrottle,
    @Inject(CREDENTIAL_STORE) private readonly store: CredentialStore,
    private readonly contexts: ContextFactory,
    private readonly events: EventBrokers,
  ) {}

  /** `nautobot.users.user.login` / `.logout` with the user, as the reference's views publish them. */
  private async publish(req: NkRequest, topic: string, userId: string): Promise<void> {
    const ctx = this.contexts.create(req);
    await publishUserEvents(this.events, ctx, ctx.exec, topic, [userId]);
  }

  private form(req: NkRequest, next: string, error = '', status = 200, extra: Record<string, string> = {}): ApiResponse {
    const prefix = externalPath(req, '');
    const token = randomBytes(24).toString('hex');
    const html = page(
      `<h1>Log in</h1>${error ? `<p role="alert">${esc(error)}</p>` : ''}
<form method="post" action="${esc(prefix)}/login/"><input type="hidden" name="csrfmiddlewaretoken" value="${token}"><input type="hidden" name="next" value="${esc(next)}">
<label>Username <input name="username" autocomplete="username" required autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label><button>Log in</button></form>`,
      { title: 'Log in', prefix },
    );
    return new ApiResponse(status, html, {
      ...HTML_HEADERS,
      ...extra,
      'Set-Cookie': [cookie.serialize(LOGIN_CSRF, token, { httpOnly: true, sameSite: 'strict', secure: req.external?.proto === 'https', path: `${prefix}/login/` })],
    });
  }

  @Get('login')
  @Public()
  loginPage(@Req() req: NkRequest) {
    return this.form(req, safeNext(req.query.next, externalPath(req, '')));
  }

  @Post('login')
  @Public()
  async login(@Req() req: NkRequest) {
    const form = new URLSearchParams(req.rawBody?.toString('utf8') ?? '');
    const next = safeNext(form.get('next'), externalPath(req, ''));
    const cookies = req.headers.cookie ? cookie.parse(req.headers.cookie) : {};
    const expected = cookies[LOGIN_CSRF] ?? '';
    const given = form.get('csrfmiddlewaretoken') ?? '';
    if (!expected || expected.length !== given.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(given))) {
      return this.form(req, next, 'Your login form expired; please try again.', 403);
    }
    const username = form.get('username') ?? '';
    let attempt;
    try {
      attempt = await this.throttle.attempt(username, req.ip ?? '');
    } catch (e) {
      if (e instanceof TooManyRequestsError) return this.form(req, next, 'Too many failed attempts; wait and try again.', 429, { 'Retry-After': String(e.retryAfterSeconds) });
      throw e;
    }
    const user = await this.store.byPassword(username, form.get('password') ?? '');
    if (!user || !user.is_active) return this.form(req, next, 'Please enter a correct username and password.');
    await attempt.succeeded();
    const session = await this.sessions.start(user.id, req.external?.proto === 'https', externalPath(req, '/'));
    await this.publish(req, 'nautobot.users.user.login', user.id);
    return redirect(next, session);
  }

  /** The stylesheet of every browsable page (their CSP allows no inline style); no API operation. */
  @Get('static/browsable.css')
  @ApiExcludeEndpoint()
  @Public()
  stylesheet() {
    return new ApiResponse(200, STYLESHEET, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' });
  }

  @Get('logout')
  @Public()
  logoutPage(@Req() req: NkRequest) {
    const cookies = req.headers.cookie ? cookie.parse(req.headers.cookie) : {};
    const html = page(
      `<h1>Log out</h1><form method="post" action="${esc(externalPath(req, '/logout/'))}"><input type="hidden" name="csrfmiddlewaretoken" value="${esc(cookies[CSRF_COOKIE] ?? '')}"><button>Log out</button></form>`,
      { title: 'Log out', prefix: externalPath(req, '') },
    );
    return new ApiResponse(200, html, HTML_HEADERS);
  }

  /** Ending a session is a write: the guard checks the session's CSRF token. */
  @Post('logout')
  async logout(@Req() req: NkRequest) {
    const cookies = await this.sessions.end(req, externalPath(req, '/'));
    const user = req.principal?.user;
    if (user) await this.publish(req, 'nautobot.users.user.logout', user.id);
    return redirect(externalPath(req, '/login/'), cookies);
  }
}
