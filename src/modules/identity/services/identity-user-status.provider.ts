import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { UserStatusProvider, UserStatusService } from '../../../core/auth/user-status';
import type { AuthUser } from '../../../core/context';
import { Db } from '../../../database/db';
import { ident, sql } from '../../../database/sql';
import { identityRowStatus, toDate } from '../status/role-summary';
import { sameInstant, statusCheckAfter } from '../status/status-check';
import { IdentityIntakeService } from './identity-intake.service';

/**
 * Users linked to identities are active only while one of their identities is, so tokens and
 * sessions stop working the moment the last role ends, with no scheduled job. The guard asks
 * only once the user's `status_check_after` has come (status/status-check.ts): at every
 * authentication while the identities deny access, at the next transition (a window or grace
 * period ends or starts, a source's group maps changed) while they grant it, never otherwise.
 * When a transition has come, access is applied now (groups, is_active, history, and the next
 * `status_check_after`).
 */
@Injectable()
export class IdentityUserStatusProvider implements UserStatusProvider, OnModuleInit {
  private readonly logger = new Logger('IdentityUserStatus');

  constructor(
    private readonly db: Db,
    private readonly statusService: UserStatusService,
    private readonly intake: IdentityIntakeService,
  ) {}

  onModuleInit(): void {
    this.statusService.register(this);
  }

  async status(user: AuthUser, now: Date): Promise<boolean | null> {
    const rows = await this.db.query(
      sql`SELECT ${ident('status')}, ${ident('role_summary')}, ${ident('next_transition')} FROM ${ident('identity_externalidentity')} WHERE ${ident('user_id')} = ${user.id}`,
    );
    // Not one of ours: the stored flag (or another provider) decides.
    if (!rows.length) return null;
    const timings = rows.map((r) => ({
      active: identityRowStatus({ status: r.status, role_summary: r.role_summary }, now) === 'active',
      next: toDate(r.next_transition),
    }));
    const active = timings.some((t) => t.active);
    const due = timings.some((t) => !!t.next && t.next.getTime() <= now.getTime());
    // A schedule that no longer matches the identities (it is only ever moved by applying) is
    // repaired by applying too, under the same row locks as every other writer.
    const stale = !due && !sameInstant(statusCheckAfter(timings), user.statusCheckAfter);
    if (due || stale) {
      try {
        // Decided on the rows as locked and applied (a message may have arrived meanwhile).
        return await this.db.transaction((tx) => this.intake.applyTransitions(null, tx, { userId: user.id }, now));
      } catch (e) {
        // The decision stands even if applying it failed (it is retried at the next request).
        this.logger.error(`Applying identity transitions for user ${user.username} failed: ${(e as Error).message}`);
      }
    }
    // Active identities leave the decision to the stored flag (an administrator may have deactivated the user).
    return active ? null : false;
  }
}
