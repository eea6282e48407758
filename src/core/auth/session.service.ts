import { Inject, Injectable } from '@nestjs/common';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as cookie from 'cookie';
import { SETTINGS } from '../../config/settings.module';
import type { Settings } from '../../config/settings';
import type { AuthUser } from '../context';
import type { NkRequest } from '../http/request';
import { PermissionDeniedError } from '../resource/errors';
import { CREDENTIAL_STORE, CredentialStore } from './auth.types';

export const SESSION_COOKIE = 'netkeel_session';
export const CSRF_COOKIE = 'csrftoken';
const SESSION_HOURS = 12;

/**
 * Cookie sessions for the browsable API: a random id in a signed, HttpOnly, SameSite=Lax
 * cookie, stored server-side only as a hash. Unsafe methods under a session need the CSRF
 * token (the `csrftoken` cookie echoed in an X-CSRFToken header or form field).
 */
@Injectable()
export class SessionService {
  private readonly secret: Buffer;

  constructor(
    @Inject(SETTINGS) settings: Settings,
    @Inject(CREDENTIAL_STORE) private readonly store: CredentialStore,
  ) {
    // Always set: the settings module fills it in (withServerSecret).
    this.secret = Buffer.from(settings.SECRET_KEY ?? randomBytes(32));
  }

  private sign(value: string): string {
    return `${value}.${createHmac('sha256', this.secret).update(value).digest('base64url')}`;
  }

  private unsign(signed: string): string | null {
    const i = signed.lastIndexOf('.');
    if (i <= 0) return null;
    const value = signed.slice(0, i);
    const expected = Buffer.from(this.sign(value));
    const given = Buffer.from(signed);
    return expected.length === given.length && timingSafeEqual(expected, given) ? value : null;
  }

  private cookies(req: NkRequest): Record<string, string | undefined> {
    return req.headers.cookie ? cookie.parse(req.headers.cookie) : {};
  }

  async userFor(req: NkRequest): Promise<AuthUser | null> {
    const signed = this.cookies(req)[SESSION_COOKIE];
    const id = signed ? this.unsign(signed) : null;
    if (!id) return null;
    const found = await this.store.bySession(hashId(id));
    // An inactive user's session is refused by the guard ("User inactive"), as tokens are.
    if (!found) return null;
    (req as NkRequest & { csrf?: string }).csrf = found.csrf;
    return found.user;
  }

  checkCsrf(req: NkRequest): void {
    const expected = (req as NkRequest & { csrf?: string }).csrf;
    const given = (req.headers['x-csrftoken'] as string | undefined) ?? req.form?.csrf ?? formField(req, 'csrfmiddlewaretoken');
    if (!expected || !given || given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
      throw new PermissionDeniedError('CSRF Failed: CSRF token missing or incorrect.');
    }
  }

  /** Starts a session; returns the Set-Cookie values for the response (`path`: the service's external root). */
  async start(userId: string, secure: boolean, path = '/'): Promise<string[]> {
    const id = randomBytes(32).toString('base64url');
    const csrf = randomBytes(24).toString('hex');
    const expires = new Date(Date.now() + SESSION_HOURS * 3600 * 1000);
    await this.store.createSession(userId, hashId(id), csrf, expires);
    return [
      cookie.serialize(SESSION_COOKIE, this.sign(id), { httpOnly: true, sameSite: 'lax', secure, path, expires }),
      cookie.serialize(CSRF_COOKIE, csrf, { sameSite: 'lax', secure, path, expires }),
    ];
  }

  /** Ends the request's session; returns the Set-Cookie values that clear it. */
  async end(req: NkRequest, path = '/'): Promise<string[]> {
    const signed = this.cookies(req)[SESSION_COOKIE];
    const id = signed ? this.unsign(signed) : null;
    if (id) await this.store.deleteSession(hashId(id));
    return [
      cookie.serialize(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', path, maxAge: 0 }),
      cookie.serialize(CSRF_COOKIE, '', { sameSite: 'lax', path, maxAge: 0 }),
    ];
  }

  csrfFor(req: NkRequest): string | undefined {
    return (req as NkRequest & { csrf?: string }).csrf;
  }
}

const hashId = (id: string) => createHash('sha256').update(id).digest('hex');

function formField(req: NkRequest, name: string): string | undefined {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/x-www-form-urlencoded') || !req.rawBody) return undefined;
  return new URLSearchParams(req.rawBody.toString('utf8')).get(name) ?? undefined;
}
