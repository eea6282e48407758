import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresMigrations } from '../../migrations/postgres';
import { databaseTarget } from '../../src/app.module';
import { buildSnapshot } from '../../src/cli/pglite-snapshot';
import { loadSettings } from '../../src/config/settings';
import { REPO_ROOT } from '../../src/core/testing/repo-root';
import { openDatabase } from '../../src/database/data-source.factory';
import { allMigrations, ownedMigrations } from '../../src/database/migrations';
import { fingerprint } from '../../src/database/pglite/snapshot';
import { runCli, startInstance } from '../support/processes';

/**
 * The embedded database's schema snapshot (src/database/pglite/snapshot.ts), as an operator sees
 * it: `npm start` on a new data directory starts from the build's snapshot and runs only the
 * migrations it lacks (a newer netkeel's, a plugin's), `npx netkeel showmigrations` then lists
 * every one applied; a snapshot made from other migrations is not used, and says why.
 */
const EXAMPLE = join(REPO_ROOT, 'dist/plugins/example');
const PLUGIN_MIGRATION = 'MaintenanceWindows1795606193511';
const TOKEN = '5a9e5a9e5a9e5a9e5a9e5a9e5a9e5a9e5a9e5a9e';
const names = postgresMigrations.map((m) => fingerprint(m).name);

describe('PGlite schema snapshot', () => {
  let root: string;
  /** A snapshot as an older build made it: every netkeel migration but the newest. */
  let older: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'netkeel-snapshot-'));
    older = join(root, 'older');
    await buildSnapshot(older, postgresMigrations.slice(0, -1));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const superuser = { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'snapshot-password', SUPERUSER_API_TOKEN: TOKEN };

  it("starts a new data directory from the snapshot, applies the migrations it lacks (netkeel's, a plugin's), and showmigrations lists all applied", async () => {
    const dataDir = join(root, 'fresh');
    const env = { DATA_DIR: dataDir, PGLITE_SNAPSHOT_DIR: older, PLUGINS: EXAMPLE };
    const first = await startInstance({ ...env, ...superuser, LOG_LEVEL: 'info' });
    try {
      expect(first.output()).toContain(`Creating the database from the schema snapshot (${names.length - 1} migrations applied)`);
      // In timestamp order, as every migration runs.
      const lacking = [names[names.length - 1], PLUGIN_MIGRATION].sort((a, b) => Number(a.slice(-13)) - Number(b.slice(-13)));
      expect(first.output()).toContain(`Applied 2 migration(s): ${lacking.join(', ')}`);
      expect((await fetch(`${first.url}/ready/`)).status).toBe(200);
      const locations = await fetch(`${first.url}/api/dcim/locations/`, { headers: { Authorization: `Token ${TOKEN}` } });
      expect(locations.status).toBe(200);
      expect(await locations.json()).toMatchObject({ count: 0, results: [] });
    } finally {
      await first.stop();
    }

    const shown = await runCli(['showmigrations'], env);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toBe(`netkeel\n${names.map((n) => ` [X] ${n}\n`).join('')}netkeel-example-maintenance\n [X] ${PLUGIN_MIGRATION}\n`);

    // A restart opens the database as it is: neither the snapshot nor a migration.
    const again = await startInstance({ ...env, LOG_LEVEL: 'info' });
    try {
      expect((await fetch(`${again.url}/ready/`)).status).toBe(200);
      expect(again.output()).not.toContain('schema snapshot');
      expect(again.output()).not.toContain('Applied');
    } finally {
      await again.stop();
    }
  });

  it('does not use a snapshot made from a migration whose code differs: the new database runs every migration', async () => {
    const stale = join(root, 'stale');
    cpSync(older, stale, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(stale, 'schema.json'), 'utf8'));
    manifest.migrations[0].sha256 = '0'.repeat(64);
    writeFileSync(join(stale, 'schema.json'), JSON.stringify(manifest));

    const server = await startInstance({ DATA_DIR: join(root, 'from-stale'), PGLITE_SNAPSHOT_DIR: stale, LOG_LEVEL: 'info' });
    try {
      expect(server.output()).toContain(`The schema snapshot in ${stale} is not used: its migration ${names[0]} differs from this version's.`);
      expect(server.output()).not.toContain('Creating the database from the schema snapshot');
      expect(server.output()).toContain(`Applied ${names.length} migration(s): ${names.join(', ')}`);
      expect((await fetch(`${server.url}/ready/`)).status).toBe(200);
    } finally {
      await server.stop();
    }
    const shown = await runCli(['showmigrations'], { DATA_DIR: join(root, 'from-stale') });
    expect(shown.stdout).toBe(`netkeel\n${names.map((n) => ` [X] ${n}\n`).join('')}`);
  });

  it("opens the embedded database with PGLITE_SHARED_BUFFERS_MB as PostgreSQL's shared_buffers", async () => {
    const target = databaseTarget(loadSettings({ DATA_DIR: join(root, 'buffers'), PGLITE_SNAPSHOT_DIR: older, PGLITE_SHARED_BUFFERS_MB: '24' }));
    const db = await openDatabase(target, { migrations: allMigrations(ownedMigrations()) });
    try {
      expect(await db.dataSource.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '24MB' }]);
    } finally {
      await db.close();
    }
    const byDefault = await openDatabase(databaseTarget(loadSettings({ DATA_DIR: join(root, 'buffers') })), { migrations: allMigrations(ownedMigrations()) });
    try {
      expect(await byDefault.dataSource.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      await byDefault.close();
    }
  });
});
