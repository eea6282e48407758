import { parseJsonObject } from '../../../core/resource/serialize/values';
import type { RoleCode } from '../message/identity-message.validator';
import { identityEffectiveStatus, IdentityEffective, RoleEffective, RoleTiming } from './effective-status';

/**
 * What an identity row keeps of each of its roles (`role_summary`), so that its effective
 * status, its groups and its user's activity need no query of the roles table.
 */
export interface RoleSummary {
  role_identifier: string;
  affiliation: string;
  status: RoleCode;
  valid_from: string | null;
  valid_through: string | null;
  grace_until: string | null;
  /** The effective status last applied to the user (for the history of time-driven changes). */
  applied: RoleEffective | null;
}

/** A Date from whatever the driver returned (Date, ISO string, or MySQL's naive UTC text). */
export function toDate(v: unknown): Date | null {
  if (v === null || v === undefined || v === '') return null;
  if (v instanceof Date) return v;
  const s = String(v);
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export function timingOf(s: Pick<RoleSummary, 'status' | 'valid_from' | 'valid_through' | 'grace_until'>): RoleTiming {
  return { status: s.status, valid_from: toDate(s.valid_from), valid_through: toDate(s.valid_through), grace_until: toDate(s.grace_until) };
}

export function parseRoleSummary(v: unknown): RoleSummary[] {
  if (Array.isArray(v)) return v as RoleSummary[];
  const parsed = typeof v === 'string' || Buffer.isBuffer(v) ? parseJsonObject(v) : v;
  return Array.isArray(parsed) ? (parsed as RoleSummary[]) : [];
}

/** Effective status of an identity row (status + role_summary columns) at `now`. */
export function identityRowStatus(row: { status: string; role_summary: unknown }, now: Date): IdentityEffective {
  return identityEffectiveStatus(row.status === 'D', parseRoleSummary(row.role_summary).map(timingOf), now);
}
