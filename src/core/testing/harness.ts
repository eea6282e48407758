import type { INestApplication } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import request from 'supertest';
import { loadSettings, Settings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.module';
import { createApp } from '../../bootstrap';
import { Db } from '../../database/db';
import { ident, join, sql } from '../../database/sql';
import { generateTokenKey, hashTokenKey } from '../auth/passwords';
import type { DatabaseTarget } from '../../database/data-source.factory';
import { Kind, migratedDatabase, MysqlTemplate, testDatabases } from '../../database/test-servers';

export const ADMIN_TOKEN = '0123456789abcdef0123456789abcdef01234567';
export const ADMIN_PASSWORD = 'correct horse battery staple';

export interface TestApp {
  kind: Kind;
  /** The database's URL (PostgreSQL and MySQL; undefined on PGlite), for a connection of another process. */
  url?: string;
  app: INestApplication;
  db: Db;
  /** The server secret the app keys token hashes with. */
  secret: string;
  /** The superuser's token. */
  token: string;
  http: ReturnType<typeof request>;
  /** Authenticated request helpers (superuser unless a token is given). */
  get(path: string, token?: string | null): request.Test;
  post(path: string, body?: unknown, token?: string | null): request.Test;
  put(path: string, body?: unknown, token?: string | null): request.Test;
  patch(path: string, body?: unknown, token?: string | null): request.Test;
  del(path: string, body?: unknown, token?: string | null): request.Test;
  options(path: string, token?: string | null): request.Test;
  /**
   * A non-superuser with the given object permissions and a token of their own; returns the
   * token key. Each grant: object types, actions, constraints (null = all).
   */
  userWith(username: string, grants: Grant[]): Promise<string>;
  /** Statements the database ran while fn ran. */
  countStatements(fn: () => Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

/** Writes a token for a user straight into the database, as POST /api/users/tokens/ would; returns its key. */
export async function issueToken({ db, secret }: { db: Db; secret: string }, userId: string, writeEnabled = true, key = generateTokenKey()): Promise<string> {
  const now = new Date();
  const cols = ['id', 'user_id', 'key_hash', 'key_suffix', 'expires', 'write_enabled', 'description', 'created', 'last_updated'];
  await db.execute(
    sql`INSERT INTO ${ident('users_token')} (${join(cols.map((c) => ident(c)))})
        VALUES (${randomUUID()}, ${userId}, ${hashTokenKey(secret, key)}, ${key.slice(-6)}, ${null}, ${writeEnabled}, ${'test'}, ${now}, ${now})`,
  );
  return key;
}

export interface Grant {
  types: string[];
  actions: string[];
  constraints?: unknown;
}

export interface StartOptions {
  env?: Record<string, string>;
  clock?: () => Date;
  /** The database to start on (closing the app drops it); a fresh one if not given. */
  database?: TestDatabase;
}

/** The global setup's MariaDB template (test/support/global-setup.ts), read once per suite. */
let template: MysqlTemplate | undefined;
function mysqlTemplate(): MysqlTemplate | undefined {
  const file = process.env.NETKEEL_MYSQL_TEMPLATE;
  if (!template && file) template = JSON.parse(readFileSync(file, 'utf8')) as MysqlTemplate;
  return template;
}

/** A database of a test: where it is (and, for another process, its settings), and how it goes. */
export interface TestDatabase {
  target: DatabaseTarget;
  /** The database's URL (PostgreSQL and MySQL). */
  url?: string;
  /** DATA_DIR or DATABASE_URL: the settings that name it, for a netkeel process of its own. */
  env: Record<string, string>;
  drop: () => Promise<void>;
}

/**
 * A fresh database of the given kind: the migrated templates of the global setup, copied
 * (PGlite's data directory, PostgreSQL) or cloned (MariaDB), where the run has them.
 */
export async function testDatabase(kind: Kind): Promise<TestDatabase> {
  if (kind === 'pglite') {
    // A copy of the global setup's migrated data directory, beside it; in memory without one.
    const template = process.env.NETKEEL_PGLITE_TEMPLATE;
    if (!template) return { target: { kind, dataDir: 'memory://' }, env: { DATA_DIR: 'memory://' }, drop: async () => undefined };
    // A short name: the data directory's lock listens on a Unix socket inside it, and a socket's
    // path may hold at most ~100 bytes (a longer one falls back to the pid, which suites that
    // check the socket would see).
    const dir = `${template}-${randomBytes(6).toString('hex')}`;
    cpSync(template, dir, { recursive: true });
    // Removed in the background (the global teardown removes whatever is left).
    return { target: { kind, dataDir: dir }, env: { DATA_DIR: dir }, drop: async () => void rm(dir, { recursive: true, force: true }).catch(() => undefined) };
  }
  const fresh = await migratedDatabase(kind, kind === 'mysql' ? mysqlTemplate() : process.env.NETKEEL_POSTGRES_TEMPLATE);
  // Dropped in the background too (3-4 s for MariaDB's ~180 tables on this machine's disk, while
  // the next suite starts); the global teardown drops whatever is left (dropRunDatabases).
  const drop = async () => void fresh.drop().catch(() => undefined);
  return { target: { kind, url: fresh.url }, url: fresh.url, env: { DATABASE_URL: fresh.url }, drop };
}

/**
 * Starts netkeel on a fresh database of the given kind (testDatabase), or on the one given, with
 * a superuser `admin`; the app applies whatever migration is still pending.
 */
export async function startApp(kind: Kind, opts: StartOptions = {}): Promise<TestApp> {
  const settings = loadSettings({
    SUPERUSER_NAME: 'admin',
    SUPERUSER_PASSWORD: ADMIN_PASSWORD,
    SUPERUSER_API_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'error',
    SECRET_KEY: 'test-secret-key-test-secret-key-0123456789',
    // One process per suite: a long cache makes statement counts independent of timing.
    DEFINITION_CACHE_SECONDS: '3600',
    ...opts.env,
  });
  const fresh = opts.database ?? (await testDatabase(kind));
  const { url, drop } = fresh;
  const target: DatabaseTarget = {
    ...fresh.target,
    ...(kind === 'pglite' ? {} : { statementTimeoutMs: settings.STATEMENT_TIMEOUT_MS }),
    preparedStatements: settings.PREPARED_STATEMENTS,
  };
  const app = await createApp({ settings, database: target, clock: opts.clock }, 'error');
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer();
  const auth = (t: request.Test, token: string | null | undefined) => (token === null ? t : t.set('Authorization', `Token ${token ?? ADMIN_TOKEN}`));
  const withBody = (t: request.Test, body: unknown) => (body === undefined ? t : t.send(body as object));
  const db = app.get(Db);
  const secret = (app.get(SETTINGS) as Settings).SECRET_KEY as string;
  return {
    kind,
    url,
    app,
    db,
    secret,
    token: ADMIN_TOKEN,
    http: request(server),
    get: (p, token) => auth(request(server).get(p), token),
    post: (p, body, token) => withBody(auth(request(server).post(p), token), body),
    put: (p, body, token) => withBody(auth(request(server).put(p), token), body),
    patch: (p, body, token) => withBody(auth(request(server).patch(p), token), body),
    del: (p, body, token) => withBody(auth(request(server).delete(p), token), body),
    options: (p, token) => auth(request(server).options(p), token),
    async userWith(username, grants) {
      const call = (m: 'post', p: string, body: unknown) => auth(request(server)[m](p), undefined).send(body as object);
      // No password: hashing one costs more than the rest of a permission test. The token is
      // written as the token endpoint would write it (that endpoint has suites of its own).
      const user = await call('post', '/api/users/users/', { username });
      if (user.status !== 201) throw new Error(`user: ${JSON.stringify(user.body)}`);
      const permissions = [...grants, { types: ['users.token'], actions: ['add', 'view'] }].map((g, i) => ({
        name: `${username}-${i}`,
        object_types: g.types,
        actions: g.actions,
        constraints: g.constraints ?? null,
        users: [user.body.id],
      }));
      const res = await call('post', '/api/users/permissions/', permissions);
      if (res.status !== 201) throw new Error(`permission: ${JSON.stringify(res.body)}`);
      return issueToken({ db, secret }, String(user.body.id));
    },
    async countStatements(fn) {
      const before = db.statements;
      await fn();
      return db.statements - before;
    },
    async close() {
      await app.close();
      await drop();
    },
  };
}

/**
 * Runs a block of tests once per database of this run (PGlite always; PostgreSQL and MariaDB
 * when TEST_POSTGRES_URL / TEST_MYSQL_URL are set), each on its own fresh database.
 */
export function eachDatabase(name: string, body: (t: () => TestApp) => void, opts: StartOptions = {}): void {
  describe.each(testDatabases())(`${name} [%s]`, (kind) => {
    let t: TestApp | undefined;
    beforeAll(async () => {
      t = await startApp(kind, opts);
    });
    afterAll(async () => {
      await t?.close();
    });
    body(() => {
      if (!t) throw new Error('app not started');
      return t;
    });
  });
}
