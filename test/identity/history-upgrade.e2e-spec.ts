import { randomUUID } from 'node:crypto';
import { mysqlMigrations } from '../../migrations/mysql';
import { postgresMigrations } from '../../migrations/postgres';
import { IdentityHistoryInChangeLog1795790000000 as PostgresHistory } from '../../migrations/postgres/1795790000000-identity-history-in-change-log';
import { IdentityHistoryInChangeLog1795790000000 as MysqlHistory } from '../../migrations/mysql/1795790000000-identity-history-in-change-log';
import { freshDatabase, testDatabases } from '../../src/database/test-servers';
import { DatabaseTarget, openDatabase, OpenDatabase } from '../../src/database/data-source.factory';

type Obj = Record<string, unknown>;

/**
 * Upgrading a database that kept identity history in its own table: every entry becomes a
 * change record of its identity carrying the entry (nothing lost), the table goes; downgrading
 * brings the table back with the same entries and removes the records the upgrade made.
 */
describe.each(testDatabases())('identity history: upgrading a database [%s]', (kind) => {
  let db: OpenDatabase | undefined;
  let drop = async () => undefined as void;

  afterAll(async () => {
    await db?.close();
    await drop();
  });

  it('turns every history entry into a change record of its identity, and back', async () => {
    let target: DatabaseTarget = { kind, dataDir: 'memory://' };
    if (kind !== 'pglite') {
      const fresh = await freshDatabase(kind);
      drop = fresh.drop;
      target = { kind, url: fresh.url };
    }
    const migration = kind === 'mysql' ? MysqlHistory : PostgresHistory;
    const list: Function[] = kind === 'mysql' ? mysqlMigrations : postgresMigrations;
    expect(list.indexOf(migration)).toBeGreaterThan(0);
    const upTo = (l: Function[], m: Function) => l.slice(0, l.indexOf(m));
    db = await openDatabase(target, { migrations: { postgres: upTo(postgresMigrations, PostgresHistory), mysql: upTo(mysqlMigrations, MysqlHistory) } });
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
    const source = { ...std(), name: 'hr', slug: 'hr', description: '', enabled: true, username_identifier_type: '', affiliation_groups: '{}', role_groups: '{}', status_on_delete: 'D', grace_period_days: 30, link_existing: false, link_match: 'username_and_email' };
    await insert('identity_identitysource', source);
    const user = { ...std(), username: 'ada', password: '', first_name: '', last_name: '', email: 'ada@example.org', is_active: true, is_staff: false, is_superuser: false, date_joined: time, last_login: null, config_data: '{}' };
    await insert('users_user', user);
    const identity = {
      ...std(),
      source_id: source.id,
      sor_id: 'h1',
      name: 'Ada Lovelace',
      email: '',
      user_id: user.id,
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
    await insert('identity_externalidentity', identity);
    const entries = [
      { id: randomUUID(), identity_id: identity.id, seq: 1, time: '2030-01-01 00:00:00', action: 'create', actor_id: user.id, actor_name: 'ada', changes: JSON.stringify({ identity: { name: { old: null, new: 'Ada Lovelace' } } }) },
      { id: randomUUID(), identity_id: identity.id, seq: 2, time: '2030-01-02 00:00:00', action: 'transition', actor_id: null, actor_name: '', changes: JSON.stringify({ groups: { added: [], removed: ['Staff'] } }) },
      { id: randomUUID(), identity_id: identity.id, seq: 3, time: '2030-01-03 00:00:00', action: 'delete', actor_id: user.id, actor_name: 'ada', changes: '{}' },
    ];
    for (const e of entries) await insert('identity_externalidentityhistory', e);
    const history = async () =>
      (await run(`SELECT * FROM ${q('identity_externalidentityhistory')} ORDER BY ${q('seq')}`)).map((r: Obj) => ({
        id: r.id,
        seq: Number(r.seq),
        action: r.action,
        actor_id: r.actor_id,
        actor_name: r.actor_name,
        changes: typeof r.changes === 'string' ? JSON.parse(r.changes) : r.changes,
      }));
    const kept = await history();
    expect(kept).toHaveLength(3);

    const step = async (direction: 'up' | 'down') => {
      const runner = db!.dataSource.createQueryRunner();
      try {
        await new (migration as new () => PostgresHistory)()[direction](runner);
      } finally {
        await runner.release();
      }
    };
    await step('up');

    await expect(run(`SELECT 1 FROM ${q('identity_externalidentityhistory')}`)).rejects.toThrow();
    const records = await run(`SELECT * FROM ${q('extras_objectchange')} ORDER BY ${q('_seq')}`);
    const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
    expect(
      records.map((r: Obj) => ({
        id: r.id,
        action: r.action,
        type: r.changed_object_type,
        object: r.changed_object_id,
        user: r.user_id,
        user_name: r.user_name,
        context: [r.change_context, r.change_context_detail],
        repr: r.object_repr,
        detail: json(r._detail),
        seq: Number(r._seq),
        time: new Date(r.time as string).getTime(),
      })),
    ).toEqual(
      entries.map((e) => ({
        id: e.id,
        action: e.action === 'create' ? 'create' : 'update',
        type: 'identity.externalidentity',
        object: identity.id,
        user: e.actor_id,
        user_name: e.actor_id ? 'ada' : 'Undefined',
        context: ['unknown', 'identity history'],
        repr: 'Ada Lovelace',
        detail: { action: e.action, changes: JSON.parse(e.changes) },
        seq: e.seq,
        time: new Date(`${e.time.replace(' ', 'T')}Z`).getTime(),
      })),
    );
    expect(new Set(records.map((r: Obj) => r.request_id)).size).toBe(3);

    await step('down');
    expect(await history()).toEqual(kept);
    expect(await run(`SELECT * FROM ${q('extras_objectchange')}`)).toEqual([]);
  });
});
