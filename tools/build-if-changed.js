#!/usr/bin/env node
// `npm start` (prestart), the benchmarks and migration:generate: compiles dist/ with
// tsconfig.build.json only when its inputs changed since the last build this script made. The
// inputs' contents are hashed (every .ts file under the compiled folders, the tsconfig files and
// package-lock.json: ~50 ms), so a checkout, an edit or a dependency change rebuilds and nothing
// else does. The build itself is incremental (TypeScript's build-info file in dist/): after a
// small change it re-checks and re-emits what the change reaches. Then it makes the embedded
// database's schema snapshot in dist/pglite-snapshot if the migrations changed (~10 s; kept
// otherwise). Nothing but Node is needed.
'use strict';
const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');
const dist = join(root, 'dist');
const stamp = join(dist, '.build-inputs');
const buildInfo = join(dist, 'tsconfig.build.tsbuildinfo');
const FOLDERS = ['src', 'migrations', 'bench', 'plugins'];
const FILES = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', relative(root, __filename)];

function* walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

function inputsHash() {
  const hash = createHash('sha256');
  const files = [...FOLDERS.flatMap((f) => (existsSync(join(root, f)) ? [...walk(join(root, f))] : [])), ...FILES.map((f) => join(root, f))].sort();
  for (const f of files) {
    hash.update(relative(root, f)).update('\0');
    hash.update(existsSync(f) ? readFileSync(f) : '').update('\0');
  }
  return hash.digest('hex');
}

const want = inputsHash();
const outputs = existsSync(join(dist, 'src', 'main.js')) && existsSync(join(dist, 'src', 'cli', 'netkeel.js'));
if (outputs && existsSync(stamp) && readFileSync(stamp, 'utf8') === want) process.exit(0);

// Outputs missing under a build-info file that says they are there: TypeScript would emit nothing.
if (!outputs) rmSync(buildInfo, { force: true });
process.stdout.write('netkeel: sources changed since the last build: compiling (tsc -p tsconfig.build.json)\n');
const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--incremental', '--tsBuildInfoFile', buildInfo], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
// The embedded database's schema snapshot (src/cli/pglite-snapshot.ts): remade when the
// migrations it holds changed; without one a new data directory runs every migration (slower).
const snap = spawnSync(process.execPath, [join(dist, 'src', 'cli', 'pglite-snapshot.js')], { cwd: root, stdio: 'inherit' });
if (snap.status !== 0) process.stderr.write('netkeel: going on without a schema snapshot: a new embedded database runs every migration\n');
writeFileSync(stamp, want);
