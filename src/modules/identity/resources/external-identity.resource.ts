import type { CustomFilter } from '../../../core/resource/definition';
import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { column } from '../../../database/schema/schema';
import { escapeLike } from '../../../core/resource/query/lookups';
import { isUuid } from '../../../core/resource/query/values';
import { ident, inList, or, sql } from '../../../database/sql';
import { userResource } from '../../users/resources/user.resource';
import { IDENTITY_EFFECTIVE, IDENTITY_EFFECTIVE_LABELS } from '../status/effective-status';
import { identityRowStatus } from '../status/role-summary';
import { identityEffectiveStatusFilter } from './effective-status.filter';
import { identitySourceResource } from './identity-source.resource';

export const IDENTITY_STATUS_CHOICES = [
  ['A', 'Active'],
  ['D', 'Deleted'],
] as const;

const KEY_TABLE = 'identity_externalidentity_key';

/** Identities whose last message lists one of these identifiers / emails (`ic`: containing). */
function keyFilter(kind: 'identifier' | 'email'): CustomFilter {
  return {
    lookups: ['ic'],
    compile(values, lookup, h) {
      const k = 'eik';
      const value = ident(k, 'value');
      const norm = (v: unknown) => (kind === 'email' ? String(v).toLowerCase() : String(v));
      const match = lookup === 'ic' ? or(values.map((v) => h.exec.dialect.ilike(value, `%${escapeLike(String(v))}%`))) : inList(value, values.map(norm));
      return sql`EXISTS (SELECT 1 FROM ${ident(KEY_TABLE)} ${ident(k)} WHERE ${ident(k, 'identity_id')} = ${ident(h.alias, 'id')} AND ${ident(k, 'kind')} = ${kind} AND ${match})`;
    },
  };
}

/**
 * By slug (the source's natural key and its intake URL segment), UUID or name, like any
 * foreign-key filter: in a query, a value naming no source the requester may view is a 400;
 * in a permission constraint, sources are named whoever asks.
 */
const sourceFilter: CustomFilter = {
  lookups: ['n'],
  async compile(values, _lookup, h) {
    const given = values.map(String);
    // Slugs first (UUID-shaped values are ids, as everywhere); what is no slug is a UUID or a name.
    const slugs = [...new Set(given.filter((v) => !isUuid(v)))];
    const s = 'eis';
    // A constraint names among all sources; a query and a reference among those the requester may view.
    const sources = await h.rows(identitySourceResource, s);
    const bySlug = slugs.length
      ? await h.exec.query<{ id: string; slug: string }>(sql`SELECT ${ident(s, 'id')} AS ${ident('id')}, ${ident(s, 'slug')} AS ${ident('slug')} ${sources.from(inList(ident(s, 'slug'), slugs))}`)
      : [];
    const found = new Set(bySlug.map((r) => r.slug));
    const rest = given.filter((v) => isUuid(v) || !found.has(v));
    const ids = [...bySlug.map((r) => String(r.id)), ...(rest.length ? await h.resolveIds(identitySourceResource, rest) : [])];
    const cond = sql`(${h.col('source_id')} IS NOT NULL AND ${inList(h.col('source_id'), ids)})`;
    return cond;
  },
};

/** Identities having a role with one of these affiliations. */
const affiliationFilter: CustomFilter = {
  lookups: ['n'],
  compile(values, _lookup, h) {
    const r = 'eia';
    const cond = sql`EXISTS (SELECT 1 FROM ${ident('identity_externalidentityrole')} ${ident(r)} WHERE ${ident(r, 'identity_id')} = ${ident(h.alias, 'id')} AND ${inList(ident(r, 'affiliation'), values.map(String))})`;
    return cond;
  },
};

/**
 * One person as one source describes them. Read-only: written only by the intake endpoint
 * (/api/identity/sources/<slug>/identities/<sor_id>/).
 */
export const externalIdentityResource = defineResource({
  app: 'identity',
  model: 'externalidentity',
  slug: 'external-identities',
  verboseName: 'external identity',
  verboseNamePlural: 'external identities',
  description: 'People as their sources of record describe them; written by PUT /api/identity/sources/<slug>/identities/<sor_id>/.',
  readOnly: true,
  naturalKey: ['source', 'sor_id'],
  ordering: ['source', 'sor_id'],
  display: (r, h) => `${r.name || r.sor_id} (${h.related('source')?.slug ?? '?'}:${r.sor_id})`,
  displayUses: { source: ['slug'] },
  indexes: [{ columns: ['source_id', 'sor_id'], unique: true }],
  columns: {
    // SHA-256 of the message's canonical JSON: an identical message changes nothing.
    message_hash: column.string(64),
    // What effective status needs of every role, kept with the roles (status/role-summary.ts).
    role_summary: column.json(),
    // What was last applied to the user: its status, and the groups this identity gave it.
    applied_status: column.string(20),
    applied_groups: column.json(),
    // The next instant a role's effective status changes.
    next_transition: column.datetime({ nullable: true }),
  },
  fields: {
    source: field.foreignKey(() => identitySourceResource, { onDelete: 'protect' }),
    sor_id: field.string({ maxLength: 255, label: 'SOR ID', help: "The source's own id of the person" }),
    name: field.string({ maxLength: 255, index: true, help: 'The first name of the last message, formatted' }),
    email: field.string({ maxLength: 254, index: true, filter: false, help: 'The first email address of the last message' }),
    user: field.foreignKey(() => userResource, { nullable: true, onDelete: 'setNull', help: 'The netkeel user this identity gives access to' }),
    status: field.choice(IDENTITY_STATUS_CHOICES, { maxLength: 2, help: 'D once the source deleted the identity' }),
    effective_status: field.computed(
      ['status', 'role_summary'],
      { type: 'object', properties: { value: { type: 'string', enum: [...IDENTITY_EFFECTIVE] }, label: { type: 'string' } } },
      (row, ctx) => {
        const value = identityRowStatus({ status: row.status, role_summary: row.role_summary }, ctx.now());
        return { value, label: IDENTITY_EFFECTIVE_LABELS[value] };
      },
      { help: 'active when a role is active or in its grace period now; pending when one starts later; else inactive (or deleted)' },
    ),
    primary_role: field.foreignKey(model('identity.externalidentityrole'), { nullable: true, onDelete: 'setNull', help: 'The role of the lowest rank in the last message' }),
    role_count: field.count('identity.externalidentityrole', 'identity'),
    message: field.json({ help: 'The last message, as sent' }),
    last_received: field.datetime(),
    history_url: field.computed(['id'], { type: 'string', format: 'uri' }, (row, ctx) => `${ctx.detailUrl(externalIdentityResource, String(row.id))}history/`),
  },
  filters: {
    source: sourceFilter,
    identifier: keyFilter('identifier'),
    email: keyFilter('email'),
    affiliation: affiliationFilter,
    effective_status: identityEffectiveStatusFilter,
  },
  search: ['sor_id', 'name', 'email'],
  features: [],
  // Personal data: never readable without a permission, even under EXEMPT_VIEW_PERMISSIONS.
  neverExempt: true,
});

