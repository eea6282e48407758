import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * The schema snapshot of the embedded database: a data directory with netkeel's committed
 * migrations applied and nothing else, dumped as a tarball at build time (`npm run build`,
 * `npm start`'s build: src/cli/pglite-snapshot.ts). A new data directory is unpacked from it
 * instead of running initdb and every migration (a first start ~20 s -> a few seconds on a
 * 2-core machine); the migrations it lacks (a newer netkeel's, the plugins') then run the normal
 * way. It is used only if it was made by this PGlite version from exactly these migrations: each
 * migration it holds is recorded with a fingerprint of its code, and one that is not among the
 * current migrations, or whose code differs, makes the whole snapshot unusable.
 */

/** dist/pglite-snapshot: beside the compiled sources (this file is dist/src/database/pglite/snapshot.js). */
export const DEFAULT_SNAPSHOT_DIR = resolve(__dirname, '../../../pglite-snapshot');

const TARBALL = 'schema.tar.gz';
const MANIFEST = 'schema.json';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type MigrationClass = Function;

export interface SnapshotManifest {
  /** PGlite's version that made it: another version's data directory may not open. */
  pglite: string;
  /** The migrations applied in it, in order, each with its code's fingerprint. */
  migrations: { name: string; sha256: string }[];
}

export function pgliteVersion(): string {
  return JSON.parse(readFileSync(join(require.resolve('@electric-sql/pglite'), '../../package.json'), 'utf8')).version;
}

/** A migration's name as TypeORM records it, and a fingerprint of what it does (its code). */
export function fingerprint(cls: MigrationClass): { name: string; sha256: string } {
  const instance = new (cls as new () => { name?: string; up: unknown; down: unknown })();
  const code = `${String(instance.up)}\n${String(instance.down)}`;
  return { name: instance.name ?? cls.name, sha256: createHash('sha256').update(code).digest('hex') };
}

export function manifestOf(migrations: MigrationClass[]): SnapshotManifest {
  return { pglite: pgliteVersion(), migrations: migrations.map(fingerprint) };
}

export type SnapshotVerdict =
  | { state: 'usable'; tarball: Buffer; migrations: string[] }
  | { state: 'absent' }
  | { state: 'stale'; why: string };

/**
 * Whether the snapshot in `dir` may start a new data directory for these migrations (all that
 * will run: netkeel's and the plugins'): made by this PGlite, holding only migrations that are
 * among them with the same code.
 */
export function readSnapshot(dir: string, migrations: MigrationClass[]): SnapshotVerdict {
  const manifestFile = join(dir, MANIFEST);
  const tarFile = join(dir, TARBALL);
  if (!existsSync(manifestFile) || !existsSync(tarFile)) return { state: 'absent' };
  let manifest: SnapshotManifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    if (typeof manifest.pglite !== 'string' || !Array.isArray(manifest.migrations)) throw new Error('not a snapshot manifest');
  } catch (e) {
    return { state: 'stale', why: `${MANIFEST} does not read (${(e as Error).message})` };
  }
  const version = pgliteVersion();
  if (manifest.pglite !== version) return { state: 'stale', why: `it was made by PGlite ${manifest.pglite}, this is ${version}` };
  const current = new Map(migrations.map(fingerprint).map((f) => [f.name, f.sha256]));
  for (const m of manifest.migrations) {
    const sha = current.get(m.name);
    if (sha === undefined) return { state: 'stale', why: `its migration ${m.name} is not among this version's` };
    if (sha !== m.sha256) return { state: 'stale', why: `its migration ${m.name} differs from this version's` };
  }
  return { state: 'usable', tarball: readFileSync(tarFile), migrations: manifest.migrations.map((m) => m.name) };
}

/** Writes a snapshot (the dumped data directory and its manifest) into `dir`, replacing the one there. */
export function writeSnapshot(dir: string, tarball: Uint8Array, manifest: SnapshotManifest): void {
  mkdirSync(dir, { recursive: true });
  // The manifest goes last and first: a half-written snapshot has none and is not used.
  rmSync(join(dir, MANIFEST), { force: true });
  const tmp = join(dir, `${TARBALL}.${process.pid}.tmp`);
  writeFileSync(tmp, tarball);
  renameSync(tmp, join(dir, TARBALL));
  writeFileSync(join(dir, `${MANIFEST}.${process.pid}.tmp`), `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(join(dir, `${MANIFEST}.${process.pid}.tmp`), join(dir, MANIFEST));
}

/**
 * Unpacks a snapshot's tarball into a new data directory, as PGlite's own `loadDataDir` would but
 * file by file from Node (PGlite's copies every file through its WebAssembly memory, which never
 * shrinks: a first start's peak RSS was 420 MB that way, the size of a restart's this way).
 * PG_VERSION, which tells PGlite the directory holds a database, is written last: an unpacking
 * that stops half-way is unpacked again at the next start.
 */
export function unpackSnapshot(tarball: Buffer, dir: string): void {
  const tar = gunzipSync(tarball);
  const files: { path: string; mode: number; data: Buffer }[] = [];
  const text = (from: number, len: number) => {
    const b = tar.subarray(from, from + len);
    const end = b.indexOf(0);
    return b.subarray(0, end < 0 ? len : end).toString('utf8');
  };
  let longName: string | undefined;
  for (let at = 0; at + 512 <= tar.length; ) {
    if (tar[at] === 0) break; // the end: blocks of zeros
    const size = parseInt(text(at + 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(tar[at + 156] || 48);
    const prefix = text(at + 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${text(at, 100)}` : text(at, 100));
    longName = undefined;
    const mode = parseInt(text(at + 100, 8).trim() || '0', 8) & 0o777;
    const data = tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === 'L') {
      longName = data.toString('utf8').replace(/\0.*$/s, '');
      continue;
    }
    const rel = normalize(name.replace(/^\/+/, ''));
    if (!rel || rel === '.' || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`the snapshot names a path outside the data directory: ${name}`);
    if (type === '5') mkdirSync(join(dir, rel), { recursive: true, mode: mode || 0o700 });
    else if (type === '0') files.push({ path: rel, mode: mode || 0o600, data });
    else throw new Error(`the snapshot holds an entry of tar type ${type} (${name})`);
  }
  files.sort((a, b) => Number(a.path === 'PG_VERSION') - Number(b.path === 'PG_VERSION'));
  for (const f of files) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, f.path), f.data, { mode: f.mode });
  }
}
