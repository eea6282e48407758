import { generateTokenKey, hashTokenKey, TOKEN_KEY } from '../../../core/auth/passwords';
import type { RequestContext } from '../../../core/context';
import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import type { Row } from '../../../database/db';
import { inList } from '../../../database/sql';
import { column } from '../../../database/schema/schema';
import { userResource } from './user.resource';

const NOBODY = '00000000-0000-0000-0000-000000000000';
/** The settings module always sets it (withServerSecret). */
const secret = (ctx: RequestContext) => ctx.settings.SECRET_KEY as string;
const plainKeyCacheKey = (id: string) => `token-key:${id}`;

/** The key is shown in full only in the response that creates it; later reads are masked. */
function readKey(row: Row, ctx: RequestContext): string {
  const plain = ctx.cache.get(plainKeyCacheKey(String(row.id)));
  return typeof plain === 'string' ? plain : `${'*'.repeat(34)}${row.key_suffix}`;
}

export const tokenResource = defineResource({
  app: 'users',
  model: 'token',
  slug: 'tokens',
  watched: true,
  columns: { key_hash: column.string(64), key_suffix: column.string(6) },
  indexes: [{ columns: ['key_hash'], unique: true }],
  naturalKey: ['id'],
  ordering: ['created'],
  display: (r, h) => `${r.key_suffix} (${h.related('user')?.username ?? ''})`,
  displayUses: { user: ['username'] },
  fields: {
    user: field.foreignKey(() => userResource, { readOnly: true, onDelete: 'cascade' }),
    key: field.composite({
      columns: ['key_hash', 'key_suffix'],
      schema: { type: 'string', minLength: 40, maxLength: 40 },
      read: readKey,
      parse: (v) => {
        // The masked form a GET shows is accepted back unchanged (a PUT of a read representation).
        if (typeof v === 'string' && /^\*+[0-9a-f]{6}$/.test(v)) return {};
        if (typeof v !== 'string' || v.length !== 40) return 'Ensure this field has exactly 40 characters.';
        if (!TOKEN_KEY.test(v)) return 'Enter a key of 40 hexadecimal characters (0-9, a-f).';
        // Hashed in beforeSave, which knows the server secret.
        return { key_suffix: v.slice(-6), _plain_key: v };
      },
      immutable: 'The key of a token cannot be changed; create a new token instead.',
    }),
    write_enabled: field.boolean({ default: true, help: 'Permit create/update/delete operations using this key' }),
    expires: field.datetime({ nullable: true }),
    description: field.string({ maxLength: 200 }),
  },
  search: ['description'],
  filters: {
    /** Find a token by its key: compared by hash, since keys are never stored. */
    key: {
      compile: (values, _l, h) => inList(h.col('key_hash'), values.map((v) => hashTokenKey(secret(h.ctx), String(v)))),
    },
  },
  features: [],
  neverExempt: true,
  basicAuth: ['add'],
  /** Every user sees and manages only their own tokens, superusers included. */
  baseScope: (ctx) => ({ user: ctx.principal.user?.id ?? NOBODY }),
  rules(s, { ctx }) {
    // A token that could never be used is a mistake, not a credential.
    const expires = s.values.expires;
    if (s.create && expires && new Date(expires as string).getTime() <= ctx.now().getTime()) return { expires: ['The expiry time must be in the future.'] };
  },
  beforeSave(states, { ctx }) {
    for (const s of states) {
      if (!s.create) continue;
      s.values.user_id = ctx.principal.user?.id ?? null;
      const key = (s.values._plain_key as string | undefined) ?? generateTokenKey();
      s.values.key_hash = hashTokenKey(secret(ctx), key);
      s.values.key_suffix = key.slice(-6);
      ctx.cache.set(plainKeyCacheKey(String(s.values.id)), key);
    }
  },
});
