import { Inject, Injectable } from '@nestjs/common';
import { SETTINGS } from '../../config/settings.module';
import type { Settings } from '../../config/settings';
import type { WatchedCache } from '../../database/watched-cache';
import { DUMMY_HASH, hashTokenKey, TOKEN_KEY, verifyPassword } from '../../core/auth/passwords';
import type { CredentialStore, PermissionStore, StoredPermission, TokenInfo } from '../../core/auth/auth.types';
import type { AuthUser } from '../../core/context';
import { Db, Row } from '../../database/db';
import { ResourceRegistry } from '../../core/resource/registry';
import { modelCache } from '../../core/resource/definition-cache';
import { ident, sql } from '../../database/sql';
import { parseJsonObject } from '../../core/resource/serialize/values';

type TokenCredential = { user: AuthUser; token: TokenInfo };

/** How many token credentials (and key hashes) are cached. */
const TOKENS_CACHED = 10_000;


const toUser = (r: Row, prefix = ''): AuthUser => ({
  id: String(r[`${prefix}id`]),
  username: r[`${prefix}username`],
  is_active: !!r[`${prefix}is_active`],
  is_superuser: !!r[`${prefix}is_superuser`],
  is_staff: !!r[`${prefix}is_staff`],
  statusCheckAfter: r[`${prefix}status_check_after`] ? new Date(r[`${prefix}status_check_after`]) : null,
});

/** Users, tokens, sessions and object permissions as the core auth layer needs them. */
@Injectable()
export class UsersCredentialStore implements CredentialStore, PermissionStore {
  /** Token credentials by key hash, while the tables they come from are unchanged (CREDENTIAL_CACHE). */
  private readonly tokens?: WatchedCache<string, TokenCredential>;
  /**
   * The hashes of keys that were found (with CREDENTIAL_CACHE): a key's two hashes were ~3 % of a
   * detail's CPU. Keys that match nothing are not kept: guesses cannot push out the others.
   */
  private readonly hashes = new Map<string, string>();
  /** Users' permissions by user id, likewise. */
  private readonly permissions?: WatchedCache<string, readonly StoredPermission[]>;

  /** Keys the token hashes (set by the settings module). */
  private readonly secret: string;

  constructor(
    private readonly db: Db,
    registry: ResourceRegistry,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.secret = settings.SECRET_KEY as string;
    if (!settings.CREDENTIAL_CACHE) return;
    // The tables come from the declarations (`watched`), which also give them their change
    // triggers; deleting a user or a group cascades to link tables that are watched too.
    this.tokens = modelCache(db, registry, ['users.token', 'users.user'], { max: TOKENS_CACHED, ttlMs: 60_000 });
    this.permissions = modelCache(db, registry, ['users.user', 'auth.group', 'users.objectpermission'], { max: 10_000, ttlMs: 60_000 });
  }

  async byTokenKey(key: string): Promise<TokenCredential | null> {
    // Anything but 40 hexadecimal characters was never issued: no hash, no statement.
    if (!TOKEN_KEY.test(key)) return null;
    if (!this.tokens) return this.loadToken(hashTokenKey(this.secret, key));
    const known = this.hashes.get(key);
    const hash = known ?? hashTokenKey(this.secret, key);
    const found = await this.tokens.get(hash, () => this.loadToken(hash));
    if (found && !known) {
      if (this.hashes.size >= TOKENS_CACHED) this.hashes.delete(this.hashes.keys().next().value!);
      this.hashes.set(key, hash);
    }
    return found;
  }

  private async loadToken(hash: string): Promise<TokenCredential | null> {
    const [r] = await this.db.query(
      sql`SELECT t.${ident('id')} AS token_id, t.${ident('expires')} AS expires, t.${ident('write_enabled')} AS write_enabled,
                 u.${ident('id')} AS id, u.${ident('username')} AS username, u.${ident('is_active')} AS is_active,
                 u.${ident('is_superuser')} AS is_superuser, u.${ident('is_staff')} AS is_staff, u.${ident('status_check_after')} AS status_check_after
          FROM ${ident('users_token')} t JOIN ${ident('users_user')} u ON u.${ident('id')} = t.${ident('user_id')}
          WHERE t.${ident('key_hash')} = ${hash}`,
    );
    if (!r) return null;
    // Frozen: a cached credential is shared by every request that presents the token.
    return Object.freeze({
      user: Object.freeze(toUser(r)),
      token: Object.freeze({ id: String(r.token_id), expires: r.expires ? new Date(r.expires) : null, writeEnabled: !!r.write_enabled }),
    });
  }

  async byPassword(username: string, password: string): Promise<AuthUser | null> {
    const [r] = await this.db.query(sql`SELECT * FROM ${ident('users_user')} WHERE ${ident('username')} = ${username}`);
    // Hash even for unknown users, so timing does not tell which usernames exist.
    const ok = await verifyPassword(password, r?.password || DUMMY_HASH);
    if (!r || !ok || !r.password) return null;
    await this.db.execute(sql`UPDATE ${ident('users_user')} SET ${ident('last_login')} = ${new Date()} WHERE ${ident('id')} = ${r.id}`);
    return toUser(r);
  }

  async createSession(userId: string, idHash: string, csrf: string, expires: Date): Promise<void> {
    await this.db.execute(sql`DELETE FROM ${ident('users_session')} WHERE ${ident('expires')} < ${new Date()}`);
    await this.db.execute(
      sql`INSERT INTO ${ident('users_session')} (${ident('id_hash')}, ${ident('user_id')}, ${ident('csrf')}, ${ident('expires')}, ${ident('created')}) VALUES (${idHash}, ${userId}, ${csrf}, ${expires}, ${new Date()})`,
    );
  }

  async bySession(idHash: string): Promise<{ user: AuthUser; csrf: string } | null> {
    const [r] = await this.db.query(
      sql`SELECT s.${ident('csrf')} AS csrf, u.* FROM ${ident('users_session')} s JOIN ${ident('users_user')} u ON u.${ident('id')} = s.${ident('user_id')}
          WHERE s.${ident('id_hash')} = ${idHash} AND s.${ident('expires')} > ${new Date()}`,
    );
    return r ? { user: toUser(r), csrf: r.csrf } : null;
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.execute(sql`DELETE FROM ${ident('users_session')} WHERE ${ident('id_hash')} = ${idHash}`);
  }

  /** Every enabled permission that reaches the user directly or through a group. */
  async forUser(userId: string): Promise<readonly StoredPermission[]> {
    return this.permissions ? ((await this.permissions.get(userId, () => this.loadPermissions(userId))) ?? []) : this.loadPermissions(userId);
  }

  /** One statement. Frozen: a cached list is shared by every request of the user. */
  private async loadPermissions(userId: string): Promise<readonly StoredPermission[]> {
    const rows = await this.db.query(
      sql`SELECT p.${ident('id')} AS id, p.${ident('actions')} AS actions, p.${ident('constraints')} AS constraints, ot.${ident('content_type')} AS content_type
          FROM ${ident('users_objectpermission')} p
          JOIN ${ident('users_objectpermission_object_types')} ot ON ot.${ident('objectpermission_id')} = p.${ident('id')}
          WHERE p.${ident('enabled')} = ${true} AND (
            p.${ident('id')} IN (SELECT ${ident('objectpermission_id')} FROM ${ident('users_objectpermission_users')} WHERE ${ident('user_id')} = ${userId})
            OR p.${ident('id')} IN (SELECT pg.${ident('objectpermission_id')} FROM ${ident('users_objectpermission_groups')} pg
                 JOIN ${ident('users_user_groups')} ug ON ug.${ident('group_id')} = pg.${ident('group_id')} WHERE ug.${ident('user_id')} = ${userId}))`,
    );
    const byId = new Map<string, { enabled: boolean; objectTypes: string[]; actions: string[]; constraints: StoredPermission['constraints'] }>();
    for (const r of rows) {
      const id = String(r.id);
      let p = byId.get(id);
      if (!p) {
        const actions = typeof r.actions === 'string' ? JSON.parse(r.actions) : r.actions;
        const constraints = r.constraints === null ? null : typeof r.constraints === 'string' ? JSON.parse(r.constraints) : r.constraints;
        p = { enabled: true, objectTypes: [], actions: Array.isArray(actions) ? actions : [], constraints };
        byId.set(id, p);
      }
      p.objectTypes.push(r.content_type);
    }
    return Object.freeze([...byId.values()].map((p) => Object.freeze({ ...p, objectTypes: Object.freeze(p.objectTypes), actions: Object.freeze(p.actions) })));
  }
}

export { parseJsonObject };
