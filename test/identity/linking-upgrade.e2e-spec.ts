import { randomUUID } from 'node:crypto';
import { mysqlMigrations } from '../../migrations/mysql';
import { postgresMigrations } from '../../migrations/postgres';
import { IdentityUserLinks1764201600000 as PostgresUserLinks } from '../../migrations/postgres/1764201600000-identity-user-links';
import { IdentityUserLinks1764201600000 as MysqlUserLinks } from '../../migrations/mysql/1764201600000-identity-user-links';
import { freshDatabase, testDatabases } from '../../src/database/test-servers';
import { DatabaseTarget, openDatabase, OpenDatabase } from '../../src/database/data-source.factory';

/**
 * Upgrading a database whose identities already link users: the user-link migration keeps
 * every identity and user as it was, records each (source, user) pair an identity links as a
 * `legacy` link (so those identities keep their users under the linking rule), and leaves
 * link_existing off on every source.
 */
describe.each(testDatabases())('identity user links: upgrading a database [%s]', (kind) => {
  let db: OpenDatabase | undefined;
  let drop = async () => undefined as void;

  afterAll(async () => {
    await db?.close();
    await drop();
  });

  it('keeps the identities and their users, records their links as legacy, and turns link_existing off', async () => {
    let target: DatabaseTarget = { kind, dataDir: 'memory://' };
    if (kind !== 'pglite') {
      const fresh = await freshDatabase(kind);
      drop = fresh.drop;
      target = { kind, url: fresh.url };
    }
    // The database as it was just before the user-link migration.
    const last = kind === 'mysql' ? MysqlUserLinks : PostgresUserLinks;
    const upTo = (list: Function[]) => list.slice(0, list.indexOf(last));
    expect(upTo(kind === 'mysql' ? mysqlMigrations : postgresMigrations).length).toBeGreaterThan(0);
    const before = { postgres: upTo(postgresMigrations), mysql: upTo(mysqlMigrations) };
    db = await openDatabase(target, { migrations: before });
    await db.dataSource.runMigrations({ transaction: 'each' });

    const q = (name: string) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);
    const run = (text: string) => db!.dataSource.query(text);
    const insert = (table: string, row: Record<string, string | number | boolean | null>) =>
      run(
        `INSERT INTO ${q(table)} (${Object.keys(row).map(q).join(', ')}) VALUES (${Object.values(row)
          .map((v) => (v === null ? 'NULL' : typeof v === 'boolean' ? (v ? 'TRUE' : 'FALSE') : typeof v === 'number' ? String(v) : `'${v}'`))
          .join(', ')})`,
      );
    const time = '2030-01-01 00:00:00';
    const std = () => ({ id: randomUUID(), created: time, last_updated: time });
    const source = async (slug: string) => {
      const row = { ...std(), name: slug, slug, description: '', enabled: true, username_identifier_type: '', affiliation_groups: '{}', role_groups: '{}', status_on_delete: 'D', grace_period_days: 30 };
      await insert('identity_identitysource', row);
      return row.id;
    };
    const user = async (username: string) => {
      const row = { ...std(), username, password: '', first_name: '', last_name: '', email: `${username}@example.org`, is_active: true, is_staff: false, is_superuser: false, date_joined: time, last_login: null, config_data: '{}' };
      await insert('users_user', row);
      return row.id;
    };
    const identity = async (sourceId: string, sorId: string, userId: string | null) => {
      const row = {
        ...std(),
        source_id: sourceId,
        sor_id: sorId,
        name: sorId,
        email: '',
        user_id: userId,
        status: 'A',
        primary_role_id: null,
        message: '{}',
        message_hash: 'x'.repeat(64),
        last_received: time,
        role_summary: '[]',
        applied_status: 'active',
        applied_groups: '[]',
        next_transition: null,
      };
      await insert('identity_externalidentity', row);
      return row.id;
    };
    const [hr, sis] = [await source('hr'), await source('sis')];
    const [ada, bob] = [await user('ada'), await user('bob')];
    const ids = [await identity(hr, 'h1', ada), await identity(hr, 'h2', ada), await identity(sis, 's1', ada), await identity(sis, 's2', bob), await identity(hr, 'h3', null)];
    const identities = async () =>
      (await run(`SELECT ${q('id')}, ${q('user_id')} FROM ${q('identity_externalidentity')} ORDER BY ${q('sor_id')}`)).map((r: Record<string, unknown>) => [r.id, r.user_id]);
    const kept = await identities();

    const runner = db.dataSource.createQueryRunner();
    try {
      await new (last as new () => PostgresUserLinks)().up(runner);
    } finally {
      await runner.release();
    }

    expect(await identities()).toEqual(kept);
    expect(kept.map(([id]: unknown[]) => id).sort()).toEqual([...ids].sort());
    const links = await run(`SELECT ${q('id')}, ${q('source_id')}, ${q('user_id')}, ${q('origin')} FROM ${q('identity_userlink')}`);
    const pairs = links.map((l: Record<string, unknown>) => `${l.source_id === hr ? 'hr' : 'sis'}:${l.user_id === ada ? 'ada' : 'bob'}:${l.origin}`).sort();
    expect(pairs).toEqual(['hr:ada:legacy', 'sis:ada:legacy', 'sis:bob:legacy']);
    for (const l of links) expect(String(l.id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const sources = await run(`SELECT ${q('link_existing')}, ${q('link_match')} FROM ${q('identity_identitysource')}`);
    expect(sources.map((s: Record<string, unknown>) => [Boolean(Number(s.link_existing)), s.link_match])).toEqual([
      [false, 'username_and_email'],
      [false, 'username_and_email'],
    ]);
  });
});
