/**
 * When the auth guard must next ask the identity app about a user (`users_user.status_check_after`,
 * see core/auth/user-status.ts), so that users whose identities need no attention cost no
 * statement at authentication.
 */

/** Identities that deny access are asked at every authentication (a time long past). */
export const CHECK_ALWAYS = new Date(0);

/** What the schedule depends on, per identity of the user. */
export interface IdentityTiming {
  /** The identity grants access now (its effective status is active). */
  active: boolean;
  /** The next instant its effective status or groups change (next_transition). */
  next: Date | null;
}

/**
 * - no identity: null (no identity governs the user; the stored is_active decides);
 * - no identity grants access: CHECK_ALWAYS, so the identities keep refusing even if an
 *   administrator sets is_active again;
 * - some identity grants access: the earliest next transition of any identity (a role ends or
 *   starts, a grace period ends, a source's group maps changed), or null when none is pending:
 *   the stored is_active decides, so an administrator's deactivation holds.
 */
export function statusCheckAfter(identities: IdentityTiming[]): Date | null {
  if (!identities.length) return null;
  if (!identities.some((i) => i.active)) return CHECK_ALWAYS;
  let next: number | null = null;
  for (const i of identities) if (i.next && (next === null || i.next.getTime() < next)) next = i.next.getTime();
  return next === null ? null : new Date(next);
}

export const sameInstant = (a: Date | null, b: Date | null): boolean => (a === null || b === null ? a === b : a.getTime() === b.getTime());
