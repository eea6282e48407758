import type { CustomFilter, CustomFilterHelpers } from '../../../core/resource/definition';
import { and, ident, inList, not, or, Sql, sql } from '../../../database/sql';
import { IDENTITY_EFFECTIVE, IdentityEffective, ROLE_EFFECTIVE, RoleEffective } from '../status/effective-status';

/**
 * `effective_status` in SQL, at the request clock's now: the same rules as the pure functions
 * in status/effective-status.ts (the behaviour suite checks that both agree at every boundary).
 */
export function roleStateCondition(state: RoleEffective, col: (c: string) => Sql, now: Date): Sql {
  const status = col('status');
  const from = col('valid_from');
  const through = col('valid_through');
  const grace = col('grace_until');
  const started = sql`(${from} IS NULL OR ${from} <= ${now})`;
  const notEnded = sql`(${through} IS NULL OR ${through} > ${now})`;
  switch (state) {
    case 'suspended':
      return sql`${status} = ${'S'}`;
    case 'deleted':
      return sql`${status} = ${'D'}`;
    case 'duplicate':
      return sql`${status} = ${'D2'}`;
    case 'pending':
      return and([inList(status, ['A', 'GP']), sql`${from} IS NOT NULL`, sql`${from} > ${now}`]);
    case 'active':
      return and([sql`${status} = ${'A'}`, started, notEnded]);
    case 'grace_period':
      return and([sql`${status} = ${'GP'}`, started, notEnded, sql`${grace} IS NOT NULL`, sql`${grace} > ${now}`]);
    case 'expired':
      return and([
        inList(status, ['A', 'GP']),
        started,
        or([and([sql`${through} IS NOT NULL`, sql`${through} <= ${now}`]), and([sql`${status} = ${'GP'}`, sql`(${grace} IS NULL OR ${grace} <= ${now})`])]),
      ]);
  }
}

const ROLE_ALIAS = 'eir';

/** An identity (on `alias`) has a role in one of these states. */
function hasRole(alias: string, states: RoleEffective[], now: Date): Sql {
  const cond = or(states.map((s) => roleStateCondition(s, (c) => ident(ROLE_ALIAS, c), now)));
  return sql`EXISTS (SELECT 1 FROM ${ident('identity_externalidentityrole')} ${ident(ROLE_ALIAS)} WHERE ${ident(ROLE_ALIAS, 'identity_id')} = ${ident(alias, 'id')} AND ${cond})`;
}

export function identityStateCondition(state: IdentityEffective, alias: string, now: Date): Sql {
  const status = ident(alias, 'status');
  if (state === 'deleted') return sql`${status} = ${'D'}`;
  const live = sql`${status} <> ${'D'}`;
  const granting = hasRole(alias, ['active', 'grace_period'], now);
  if (state === 'active') return and([live, granting]);
  const pending = hasRole(alias, ['pending'], now);
  if (state === 'pending') return and([live, not(granting), pending]);
  return and([live, not(granting), not(pending)]);
}

function parseStates<T extends string>(values: unknown[], allowed: readonly T[], h: CustomFilterHelpers): T[] {
  return values.map((v) => {
    const s = String(v);
    if (!(allowed as readonly string[]).includes(s)) h.invalid(`Select a valid choice. ${s} is not one of the available choices.`);
    return s as T;
  });
}

export const roleEffectiveStatusFilter: CustomFilter = {
  lookups: ['n'],
  compile(values, _lookup, h) {
    const cond = or(parseStates(values, ROLE_EFFECTIVE, h).map((s) => roleStateCondition(s, h.col, h.ctx.now())));
    return cond;
  },
};

export const identityEffectiveStatusFilter: CustomFilter = {
  lookups: ['n'],
  compile(values, _lookup, h) {
    const cond = or(parseStates(values, IDENTITY_EFFECTIVE, h).map((s) => identityStateCondition(s, h.alias, h.ctx.now())));
    return cond;
  },
};
