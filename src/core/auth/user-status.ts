import { Injectable } from '@nestjs/common';
import type { AuthUser } from '../context';

/**
 * Something other than the users table that decides whether a user may act right now, for
 * example an identity source whose roles ended. Apps register providers at start-up.
 *
 * Consulting providers costs statements, so the guard consults them only for users that ask
 * for it: a provider that governs a user keeps the user's `statusCheckAfter` (stored with the
 * user, loaded with the credential) at the first instant its answer may differ from the stored
 * `is_active`: a past instant when it must be asked at every authentication, a future one when
 * its answer changes then (a validity window ends), null when the stored flag says it all.
 * Users no provider governs cost nothing. One column serves every provider: a provider that
 * writes it must not postpone an instant another provider set (today only the identity app
 * registers one).
 */
export interface UserStatusProvider {
  /**
   * `false`: the user is inactive now; `true`: the user is active now (the provider owns the
   * user's status and has just brought the stored flag up to date); `null`: no opinion, the
   * stored `is_active` decides. Called only once the user's `statusCheckAfter` has come; the
   * provider should move it on when it has brought its state up to date.
   */
  status(user: AuthUser, now: Date): Promise<boolean | null>;
}

/** The registered user status providers; core never knows which apps register one. */
@Injectable()
export class UserStatusService {
  private readonly providers: UserStatusProvider[] = [];

  register(provider: UserStatusProvider): void {
    this.providers.push(provider);
  }

  /** Whether the providers are to be consulted for this user at `now`. */
  due(user: AuthUser, now: Date): boolean {
    return user.statusCheckAfter !== null && user.statusCheckAfter.getTime() <= now.getTime();
  }

  /**
   * The stored flag until the user's `statusCheckAfter` has come; from then on any provider
   * saying inactive wins, otherwise a provider's `true`, else the stored flag.
   */
  async isActive(user: AuthUser, now: Date): Promise<boolean> {
    if (!this.due(user, now)) return user.is_active;
    let decided: boolean | null = null;
    for (const p of this.providers) {
      const s = await p.status(user, now);
      if (s === false) return false;
      if (s === true) decided = true;
    }
    return decided ?? user.is_active;
  }
}
