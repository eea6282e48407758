import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { newId } from '../../core/ids';
import { SETTINGS } from '../../config/settings.module';
import type { Settings } from '../../config/settings';
import { generateTokenKey, hashTokenKey, keyLegacyTokenHash, secretFingerprint } from '../../core/auth/passwords';
import { StartupError } from '../../database/connect';
import { Db, Executor } from '../../database/db';
import { ident, inList, join, sql } from '../../database/sql';
import { insertSuperuser } from './accounts';

/**
 * The first administrator: SUPERUSER_NAME/PASSWORD (and SUPERUSER_API_TOKEN as its token) when
 * set; otherwise, on a database with no users at all, `admin` with a random password and token
 * printed once.
 */
@Injectable()
export class UsersBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly db: Db,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const s = this.settings;
    // Several instances may start at once: the one that records the fingerprint first wins, the
    // others run again and find it.
    await this.db.retryingTransaction((tx) => this.checkSecret(tx));
    // Likewise the superuser: the loser of the race for its name runs again and finds it.
    await this.db.retryingTransaction(async (tx) => {
      if (s.SUPERUSER_NAME) {
        let [user] = await tx.query(sql`SELECT ${ident('id')} FROM ${ident('users_user')} WHERE ${ident('username')} = ${s.SUPERUSER_NAME}`);
        if (!user) {
          const id = await insertSuperuser(tx, s.SUPERUSER_NAME, s.SUPERUSER_PASSWORD ?? '', s.SUPERUSER_EMAIL ?? '');
          user = { id };
          this.logger.log(`Created superuser ${s.SUPERUSER_NAME}`);
        }
        if (s.SUPERUSER_API_TOKEN) {
          const [token] = await tx.query(sql`SELECT ${ident('id')} FROM ${ident('users_token')} WHERE ${ident('key_hash')} = ${hashTokenKey(s.SECRET_KEY as string, s.SUPERUSER_API_TOKEN)}`);
          if (!token) await this.createToken(tx, String(user.id), s.SUPERUSER_API_TOKEN);
        }
        return;
      }
      const [{ n }] = await tx.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${ident('users_user')}`);
      if (Number(n) > 0) return;
      const password = randomBytes(12).toString('base64url');
      const key = generateTokenKey();
      const id = await insertSuperuser(tx, 'admin', password, '');
      await this.createToken(tx, id, key);
      process.stdout.write(
        `\nnetkeel: created the superuser "admin" (shown only this once)\n  password:  ${password}\n  API token: ${key}\n  e.g. curl -H "Authorization: Token ${key}" http://localhost:${s.PORT}/api/\n\n`,
      );
    });
  }

  /**
   * Token hashes are keyed with the server secret. The first start that keys them (no
   * fingerprint recorded yet) re-keys the tokens stored as plain SHA-256, in the transaction
   * that records the fingerprint; a start with a different secret is refused, since every
   * token would then fail.
   */
  private async checkSecret(tx: Executor): Promise<void> {
    const secret = this.settings.SECRET_KEY as string;
    const fingerprint = secretFingerprint(secret);
    const [row] = await tx.query<{ fingerprint: string }>(sql`SELECT ${ident('fingerprint')} FROM ${ident('users_secret_check')} WHERE ${ident('name')} = ${'token_hash'}`);
    if (row) {
      if (row.fingerprint !== fingerprint) {
        throw new StartupError(
          "SECRET_KEY is not the secret this database's API tokens were hashed with: start with that secret (SECRET_KEY, or DATA_DIR/secret_key), or no token will authenticate",
        );
      }
      return;
    }
    await tx.execute(sql`INSERT INTO ${ident('users_secret_check')} (${ident('name')}, ${ident('fingerprint')}) VALUES (${'token_hash'}, ${fingerprint})`);
    const tokens = await tx.query<{ id: string; key_hash: string }>(sql`SELECT ${ident('id')}, ${ident('key_hash')} FROM ${ident('users_token')}`);
    const d = tx.dialect;
    for (let i = 0; i < tokens.length; i += 500) {
      const chunk = tokens.slice(i, i + 500);
      const cases = chunk.map((t) => sql` WHEN ${d.typedParam(String(t.id), 'uuid')} THEN ${d.typedParam(keyLegacyTokenHash(secret, t.key_hash), 'string')}`);
      await tx.execute(
        sql`UPDATE ${ident('users_token')} SET ${ident('key_hash')} = CASE ${ident('id')}${join(cases, '')} END WHERE ${inList(ident('id'), chunk.map((t) => String(t.id)))}`,
      );
    }
    if (tokens.length) this.logger.log(`Keyed the hashes of ${tokens.length} API token(s) with the server secret`);
  }

  private async createToken(tx: Executor, userId: string, key: string): Promise<void> {
    const now = new Date();
    await tx.execute(
      sql`INSERT INTO ${ident('users_token')} (${join(['id', 'user_id', 'key_hash', 'key_suffix', 'expires', 'write_enabled', 'description', 'created', 'last_updated'].map((c) => ident(c)))})
          VALUES (${newId()}, ${userId}, ${hashTokenKey(this.settings.SECRET_KEY as string, key)}, ${key.slice(-6)}, ${null}, ${true}, ${'bootstrap'}, ${now}, ${now})`,
    );
  }
}
