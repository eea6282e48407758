import type { CustomFilter } from '../../../core/resource/definition';
import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { unscoped } from '../../../core/resource/query/rows';
import { filterCompiler, visibleRows } from '../../../core/resource/query/scope';
import { ValidationError } from '../../../core/resource/errors';
import { Sql, sql } from '../../../database/sql';
import { ROLE_CODES } from '../message/identity-message.validator';
import { ROLE_CODE_LABELS, ROLE_EFFECTIVE, ROLE_EFFECTIVE_LABELS, roleEffectiveStatus } from '../status/effective-status';
import { toDate } from '../status/role-summary';
import { roleEffectiveStatusFilter } from './effective-status.filter';
import { externalIdentityResource } from './external-identity.resource';

export const ROLE_STATUS_CHOICES = ROLE_CODES.map((c) => [c, ROLE_CODE_LABELS[c]] as const);

/**
 * A filter of the identity (source, sor_id, identifier, email, user) applied to the role's
 * identity, compiled as that filter is on identities: in a query, a value naming no object is
 * a 400, named after this parameter; in a permission constraint, as a constraint.
 */
function viaIdentity(key: string, lookups: string[]): CustomFilter {
  return {
    lookups,
    async compile(values, lookup, h) {
      const x = 'eii';
      const param = lookup ? `${key}__${lookup}` : key;
      const compiler = filterCompiler(h.ctx, h.exec);
      let inner: Sql;
      try {
        inner =
          h.mode === 'query'
            ? await compiler.fromQuery(externalIdentityResource, new Map([[param, values.map(String)]]), x)
            : await compiler.fromConstraint(externalIdentityResource, { [param]: values }, x, h.mode);
      } catch (e) {
        if (e instanceof ValidationError && !Array.isArray(e.errors)) h.invalid(Object.values(e.errors).flat()[0] ?? 'Invalid value.');
        throw e;
      }
      // As a traversal of the engine: a query sees through the identities the requester may view only.
      const identities = h.mode === 'constraint' ? unscoped(externalIdentityResource, x) : await visibleRows(h.ctx, h.exec, externalIdentityResource, x);
      return sql`${h.col('identity_id')} IN ${identities.select('id', inner)}`;
    },
  };
}

/** One role of an external identity. Read-only: written only by the intake endpoint. */
export const externalIdentityRoleResource = defineResource({
  app: 'identity',
  model: 'externalidentityrole',
  slug: 'external-identity-roles',
  verboseName: 'external identity role',
  verboseNamePlural: 'external identity roles',
  description: 'Roles of external identities, matched across messages by roleIdentifier.',
  readOnly: true,
  naturalKey: ['identity', 'role_identifier'],
  ordering: ['identity', 'rank', 'role_identifier'],
  display: (r, h) => `${h.related('identity')?.name || h.related('identity')?.sor_id || '?'}: ${r.role_identifier} (${r.affiliation})`,
  displayUses: { identity: ['name', 'sor_id'] },
  indexes: [{ columns: ['identity_id', 'role_identifier'], unique: true }],
  fields: {
    identity: field.foreignKey(() => externalIdentityResource, { onDelete: 'cascade' }),
    role_identifier: field.string({ maxLength: 255, label: 'roleIdentifier' }),
    affiliation: field.string({ maxLength: 255, index: true }),
    status: field.choice(ROLE_STATUS_CHOICES, { maxLength: 2, index: true, help: 'The code as sent, or the source\'s status_on_delete once the role is missing from the messages' }),
    effective_status: field.computed(
      ['status', 'valid_from', 'valid_through', 'grace_until'],
      { type: 'object', properties: { value: { type: 'string', enum: [...ROLE_EFFECTIVE] }, label: { type: 'string' } } },
      (row, ctx) => {
        const value = roleEffectiveStatus(
          { status: row.status, valid_from: toDate(row.valid_from), valid_through: toDate(row.valid_through), grace_until: toDate(row.grace_until) },
          ctx.now(),
        );
        return { value, label: ROLE_EFFECTIVE_LABELS[value] };
      },
      { help: 'The status now, from the code and the validity window' },
    ),
    status_since: field.datetime({ help: 'When the code last changed' }),
    grace_until: field.datetime({ nullable: true, help: 'End of the grace period (GP)' }),
    rank: field.integer({ nullable: true, help: 'Order among the roles; lower first' }),
    valid_from: field.datetime({ nullable: true }),
    valid_through: field.datetime({ nullable: true }),
    title: field.string({ maxLength: 255 }),
    organization: field.string({ maxLength: 255 }),
    department: field.string({ maxLength: 255 }),
    missing_since: field.datetime({ nullable: true, help: 'Since when the role has been missing from the messages' }),
    data: field.json({ help: 'The role object as last sent' }),
  },
  filters: {
    source: viaIdentity('source', ['n']),
    sor_id: viaIdentity('sor_id', ['n', 'ic', 'ie']),
    identifier: viaIdentity('identifier', ['ic']),
    email: viaIdentity('email', ['ic']),
    user: viaIdentity('user', ['n']),
    effective_status: roleEffectiveStatusFilter,
  },
  search: ['role_identifier', 'affiliation', 'title', 'organization', 'department'],
  features: [],
  // Personal data: never readable without a permission, even under EXEMPT_VIEW_PERMISSIONS.
  neverExempt: true,
});
