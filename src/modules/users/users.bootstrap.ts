import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { SETTINGS } from '../../config/settings.module';
import type { Settings } from '../../config/settings';
import { generateTokenKey, hashPassword, hashTokenKey } from '../../core/auth/passwords';
import { Db, Executor } from '../../database/db';
import { ident, join, sql } from '../../database/sql';

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
    await this.db.transaction(async (tx) => {
      if (s.SUPERUSER_NAME) {
        let [user] = await tx.query(sql`SELECT ${ident('id')} FROM ${ident('users_user')} WHERE ${ident('username')} = ${s.SUPERUSER_NAME}`);
        if (!user) {
          const id = await this.createUser(tx, s.SUPERUSER_NAME, s.SUPERUSER_PASSWORD ? await hashPassword(s.SUPERUSER_PASSWORD) : '', s.SUPERUSER_EMAIL ?? '');
          user = { id };
          this.logger.log(`Created superuser ${s.SUPERUSER_NAME}`);
        }
        if (s.SUPERUSER_API_TOKEN) {
          const [token] = await tx.query(sql`SELECT ${ident('id')} FROM ${ident('users_token')} WHERE ${ident('key_hash')} = ${hashTokenKey(s.SUPERUSER_API_TOKEN)}`);
          if (!token) await this.createToken(tx, String(user.id), s.SUPERUSER_API_TOKEN);
        }
        return;
      }
      const [{ n }] = await tx.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${ident('users_user')}`);
      if (Number(n) > 0) return;
      const password = randomBytes(12).toString('base64url');
      const key = generateTokenKey();
      const id = await this.createUser(tx, 'admin', await hashPassword(password), '');
      await this.createToken(tx, id, key);
      process.stdout.write(
        `\nnetkeel: created the superuser "admin" (shown only this once)\n  password:  ${password}\n  API token: ${key}\n  e.g. curl -H "Authorization: Token ${key}" http://localhost:${s.PORT}/api/\n\n`,
      );
    });
  }

  private async createUser(tx: Executor, username: string, password: string, email: string): Promise<string> {
    const id = randomUUID();
    const now = new Date();
    const cols = ['id', 'username', 'password', 'first_name', 'last_name', 'email', 'is_active', 'is_staff', 'is_superuser', 'date_joined', 'config_data', 'created', 'last_updated'];
    await tx.execute(
      sql`INSERT INTO ${ident('users_user')} (${join(cols.map((c) => ident(c)))}) VALUES (${id}, ${username}, ${password}, ${''}, ${''}, ${email}, ${true}, ${true}, ${true}, ${now}, ${'{}'}, ${now}, ${now})`,
    );
    return id;
  }

  private async createToken(tx: Executor, userId: string, key: string): Promise<void> {
    const now = new Date();
    await tx.execute(
      sql`INSERT INTO ${ident('users_token')} (${join(['id', 'user_id', 'key_hash', 'key_suffix', 'expires', 'write_enabled', 'description', 'created', 'last_updated'].map((c) => ident(c)))})
          VALUES (${randomUUID()}, ${userId}, ${hashTokenKey(key)}, ${key.slice(-6)}, ${null}, ${true}, ${'bootstrap'}, ${now}, ${now})`,
    );
  }
}
