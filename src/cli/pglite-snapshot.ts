/**
 * `node dist/src/cli/pglite-snapshot.js [dir]`, run by the build (`npm run build`, and
 * tools/build-if-changed.js for `npm start` and the benchmarks): makes the embedded database's
 * schema snapshot (src/database/pglite/snapshot.ts) in `dir` (default dist/pglite-snapshot) from
 * netkeel's committed PostgreSQL migrations, unless the one there already fits them.
 */
import 'reflect-metadata';
import { postgresMigrations } from '../../migrations/postgres';
import { openDatabase } from '../database/data-source.factory';
import { compileWasmWithLiftoffOnly } from '../database/pglite/wasm-flags';
import { DEFAULT_SNAPSHOT_DIR, manifestOf, readSnapshot, writeSnapshot } from '../database/pglite/snapshot';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export async function buildSnapshot(dir: string, migrations: Function[] = postgresMigrations): Promise<'kept' | 'made'> {
  const now = readSnapshot(dir, migrations);
  if (now.state === 'usable' && now.migrations.length === migrations.length) return 'kept';
  const db = await openDatabase({ kind: 'pglite', dataDir: 'memory://', snapshotDir: null }, { migrations: { postgres: migrations, mysql: [] } });
  try {
    await db.dataSource.runMigrations({ transaction: 'each' });
    await db.dataSource.query('CHECKPOINT');
    const tar = await db.pglite!.dumpDataDir('gzip');
    writeSnapshot(dir, new Uint8Array(await tar.arrayBuffer()), manifestOf(migrations));
  } finally {
    await db.close();
  }
  return 'made';
}

if (require.main === module) {
  compileWasmWithLiftoffOnly();
  const dir = process.argv[2] ?? DEFAULT_SNAPSHOT_DIR;
  const started = Date.now();
  buildSnapshot(dir).then(
    (r) => {
      if (r === 'made') process.stdout.write(`netkeel: schema snapshot of the embedded database made in ${dir} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    },
    (e: Error) => {
      process.stderr.write(`netkeel: could not make the schema snapshot of the embedded database: ${e.message}\n`);
      process.exit(1);
    },
  );
}
