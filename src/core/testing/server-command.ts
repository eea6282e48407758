import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './repo-root';

/**
 * node's own options for the server, as `npm start` gives them (package.json `scripts.start`:
 * `node <options> dist/src/main.js`). The suites and the benchmarks start the server with the
 * same options, and a test keeps the image's CMD in step with them.
 *
 * `--max-old-space-size=1024`: with its default limit (a quarter of the machine's memory, up to
 * 4 GB) V8 lets the heap grow up to 4x between full collections; under 2 GB it grows by at most
 * ~1.3-2x. The server's live heap is ~60 MB, and its peak RSS under the benchmark's load went from
 * ~280 to ~185 MB on PostgreSQL and from ~340 to ~270 MB on PGlite, at the same speed
 * (docs/performance.md, session 36).
 *
 * `--max-semi-space-size=8`: V8's young generation (two semi-spaces, 16 MB each by default on
 * 64-bit) fills and grows under load; at 8 MB the peak RSS under the benchmark's load is ~16-20 MB
 * lower on PostgreSQL and MariaDB, at the same CPU per request (4 MB saved little more and cost
 * more collections; docs/performance.md, session 38).
 */
export function serverNodeOptions(): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  if (words[0] !== 'node' || words[words.length - 1] !== 'dist/src/main.js') throw new Error(`package.json's start script is not "node [options] dist/src/main.js": ${pkg.scripts.start}`);
  return words.slice(1, -1);
}
