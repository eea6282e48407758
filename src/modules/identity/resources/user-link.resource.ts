import { defineResource } from '../../../core/resource/definition';
import { ConflictError, PermissionDeniedError } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { visibleRows } from '../../../core/resource/query/scope';
import { ident, inList, raw, sql } from '../../../database/sql';
import { userResource } from '../../users/resources/user.resource';
import { identitySourceResource } from './identity-source.resource';

export const LINK_ORIGIN_CHOICES = [
  ['admin', 'Linked by an administrator'],
  ['created', 'Created by the source'],
  ['matched', 'Matched by link_existing'],
  ['legacy', 'Linked before links were recorded'],
] as const;

const truthy = (v: unknown) => v === true || v === 1 || v === '1';

/**
 * The users an identity source may link its identities to. Intake records the users a source
 * creates (and those it matches under `link_existing`); an administrator links any other user
 * explicitly by creating a link here. A source's service account, which only writes identity
 * messages, cannot create links. A link is refused for a superuser, and needs the right to
 * change the user (a delegated administrator cannot hand a source a user they may not manage).
 */
export const userLinkResource = defineResource({
  app: 'identity',
  model: 'userlink',
  slug: 'user-links',
  verboseName: 'user link',
  description: 'Users an identity source may link its identities to: those it created, and those an administrator linked to it.',
  naturalKey: ['source', 'user'],
  ordering: ['source', 'user'],
  display: (r, h) => `${h.related('source')?.slug ?? '?'}: ${h.related('user')?.username ?? '?'}`,
  displayUses: { source: ['slug', 'name'], user: ['username'] },
  fields: {
    source: field.foreignKey(() => identitySourceResource, { required: true, onDelete: 'cascade' }),
    user: field.foreignKey(() => userResource, { required: true, onDelete: 'cascade' }),
    origin: field.choice(LINK_ORIGIN_CHOICES, { readOnly: true, default: 'admin', maxLength: 16, help: 'How the link came about' }),
  },
  uniqueTogether: [{ fields: ['source', 'user'], message: 'This user is already linked to this source.' }],
  features: [],
  neverExempt: true,
  async rules(s, { ctx, exec }) {
    // A link is never re-pointed (the writer does not enforce `immutable` on foreign keys).
    if (!s.create) {
      const errors: Record<string, string[]> = {};
      for (const f of ['source', 'user'] as const) {
        if (String(s.values[`${f}_id`]) !== String(s.existing?.[`${f}_id`])) errors[f] = [`The ${f} of a link cannot be changed; delete the link and create another.`];
      }
      return errors;
    }
    const userId = String(s.values.user_id);
    // Locked: intake decides about the same user under the same lock.
    const [user] = await exec.query(sql`SELECT ${ident('is_superuser')} FROM ${ident('users_user')} WHERE ${ident('id')} = ${userId}${raw(exec.dialect.forUpdate)}`);
    if (!user) return;
    if (truthy(user.is_superuser)) return { user: ["A superuser cannot be linked to an identity source: no source may manage a superuser's access."] };
    const changeable = await visibleRows(ctx, exec, userResource, 'u', 'change');
    const [{ n }] = await exec.query<{ n: number }>(sql`SELECT COUNT(*) AS n ${changeable.from(sql`u.${ident('id')} = ${userId}`)}`);
    if (!Number(n)) throw new PermissionDeniedError();
  },
  /**
   * A link that an identity of its source uses (the identity's user) cannot go: the source
   * would keep managing a user it is no longer linked to. The links are locked first, so an
   * intake linking the same user concurrently is seen either way.
   */
  async beforeDelete(rows, { exec }) {
    await exec.query(sql`SELECT ${ident('id')} FROM ${ident('identity_userlink')} WHERE ${inList(ident('id'), rows.map((r) => String(r.id)))}${raw(exec.dialect.forUpdate)}`);
    for (const r of rows) {
      const used = await exec.query(
        sql`SELECT ${ident('sor_id')} FROM ${ident('identity_externalidentity')} WHERE ${ident('source_id')} = ${r.source_id} AND ${ident('user_id')} = ${r.user_id}`,
      );
      const n = used.length;
      if (n) throw new ConflictError(`Unable to delete the link: ${n} ${n === 1 ? 'identity of its source gives' : 'identities of its source give'} this user access.`);
    }
  },
});
