import type { RoleCode } from '../message/identity-message.validator';

/**
 * Effective status, computed at read and authentication time from a role's code and validity
 * window, so no scheduled job is needed. Pure functions of (role, now); the SQL filters in
 * resources/effective-status.filter.ts compute the same thing in the database.
 *
 * Precedence: the code first (S, D, D2 are never active), then the window (before validFrom:
 * pending; from validThrough on: expired), then a grace period's end (GP: active until
 * grace_until, expired after).
 */
export const ROLE_EFFECTIVE = ['active', 'grace_period', 'pending', 'expired', 'suspended', 'deleted', 'duplicate'] as const;
export type RoleEffective = (typeof ROLE_EFFECTIVE)[number];

export const IDENTITY_EFFECTIVE = ['active', 'pending', 'inactive', 'deleted'] as const;
export type IdentityEffective = (typeof IDENTITY_EFFECTIVE)[number];

export const ROLE_CODE_LABELS: Record<RoleCode, string> = { A: 'Active', D: 'Deleted', D2: 'Duplicate', GP: 'Grace period', S: 'Suspended' };
export const ROLE_EFFECTIVE_LABELS: Record<RoleEffective, string> = {
  active: 'Active',
  grace_period: 'Grace period',
  pending: 'Pending',
  expired: 'Expired',
  suspended: 'Suspended',
  deleted: 'Deleted',
  duplicate: 'Duplicate',
};
export const IDENTITY_EFFECTIVE_LABELS: Record<IdentityEffective, string> = { active: 'Active', pending: 'Pending', inactive: 'Inactive', deleted: 'Deleted' };

/** What the status of a role depends on. */
export interface RoleTiming {
  status: RoleCode;
  valid_from: Date | null;
  valid_through: Date | null;
  /** End of a grace period (GP roles). */
  grace_until: Date | null;
}

export function roleEffectiveStatus(r: RoleTiming, now: Date): RoleEffective {
  switch (r.status) {
    case 'S':
      return 'suspended';
    case 'D':
      return 'deleted';
    case 'D2':
      return 'duplicate';
  }
  const t = now.getTime();
  if (r.valid_from && t < r.valid_from.getTime()) return 'pending';
  if (r.valid_through && t >= r.valid_through.getTime()) return 'expired';
  if (r.status === 'GP') return r.grace_until && t < r.grace_until.getTime() ? 'grace_period' : 'expired';
  return 'active';
}

/** Roles that grant access: active, or within their grace period. */
export const grantsAccess = (s: RoleEffective) => s === 'active' || s === 'grace_period';

/** An identity is active when any of its roles grants access; a deleted identity never is. */
export function identityEffectiveStatus(deleted: boolean, roles: RoleTiming[], now: Date): IdentityEffective {
  if (deleted) return 'deleted';
  const states = roles.map((r) => roleEffectiveStatus(r, now));
  if (states.some(grantsAccess)) return 'active';
  if (states.includes('pending')) return 'pending';
  return 'inactive';
}

/** The next instant after `now` at which any role's effective status changes (null: never). */
export function nextTransition(roles: RoleTiming[], now: Date): Date | null {
  let next: number | null = null;
  for (const r of roles) {
    if (r.status !== 'A' && r.status !== 'GP') continue;
    for (const d of [r.valid_from, r.valid_through, r.status === 'GP' ? r.grace_until : null]) {
      if (d && d.getTime() > now.getTime() && (next === null || d.getTime() < next)) next = d.getTime();
    }
  }
  return next === null ? null : new Date(next);
}
