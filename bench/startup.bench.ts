/**
 * Start-up of the embedded database (issue 22 "Operations", issue 25's PGlite RSS): how long
 * netkeel takes, from the process's start to `/ready/` answering 200, on a fresh data directory
 * (the first start: the schema made) and on an existing one (a restart), and the process's peak
 * resident set size (VmHWM) at that point. Each round starts the built server as `npm start`
 * does (`node dist/src/main.js`, no DATABASE_URL) on a new data directory, stops it, and starts
 * it again on the same directory; the medians of the rounds are printed with the targets. The
 * RSS under load is `npm run bench -- --db=pglite`'s.
 *
 * Usage: npm run bench:startup -- [--rounds=5] [--port=18565]
 */
import { ChildProcess, spawn } from 'node:child_process';
import { serverNodeOptions } from '../src/core/testing/server-command';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { DEFAULT_SNAPSHOT_DIR } from '../src/database/pglite/snapshot';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { args, machineHeader, machineSpeedMs, peakRssMb, percentile, round, stopProcess } from './support';

const TARGETS = { firstMs: 10_000, restartMs: 3_000, rssMb: 300 };

/** GET `path`'s status, or 0 when nothing answers yet. */
function status(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(2000, () => req.destroy());
  });
}

/** Starts the server on `dataDir` and waits until /ready/ answers 200: the time that took, and the process. */
async function startUntilReady(dataDir: string, port: number): Promise<{ ms: number; child: ChildProcess }> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...serverNodeOptions(), join(__dirname, '../src/main.js')], {
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? -1));
  for (;;) {
    if (exited !== null) throw new Error(`the server exited with ${exited} before it was ready`);
    if ((await status(port, '/ready/')) === 200) return { ms: Number(process.hrtime.bigint() - started) / 1e6, child };
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main(): Promise<void> {
  const a = args();
  const rounds = Number(a.rounds ?? 5);
  const port = Number(a.port ?? 18565);
  process.stdout.write(
    machineHeader() +
      `${rounds} rounds: a first start on a fresh data directory, then a restart on it\n` +
      // A first start unpacks the build's schema snapshot where it has one; without it (a build
      // by tsc alone) it runs every migration: twice the time and ~700 MB.
      (existsSync(DEFAULT_SNAPSHOT_DIR) ? `schema snapshot: ${DEFAULT_SNAPSHOT_DIR}\n\n` : `schema snapshot: none in this build (npm run build makes it): a first start runs every migration\n\n`),
  );
  const first: number[] = [];
  const restart: number[] = [];
  const firstRss: number[] = [];
  const restartRss: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const dir = mkdtempSync(join(os.tmpdir(), 'netkeel-bench-startup-'));
    try {
      for (const [times, rss] of [[first, firstRss], [restart, restartRss]]) {
        const { ms, child } = await startUntilReady(dir, port);
        times.push(ms);
        rss.push(peakRssMb(child.pid!));
        await stopProcess(child);
      }
      process.stdout.write(`round ${i + 1}: first start ${round(first[i])} ms (${firstRss[i]} MB), restart ${round(restart[i])} ms (${restartRss[i]} MB)\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const med = (v: number[]) => round(percentile(v, 50));
  const mark = (ok: boolean) => (ok ? 'met' : '**not met**');
  process.stdout.write(
    `\n| measure (median of ${rounds}) | figure | target | |\n|---|---|---|---|\n` +
      `| first start, fresh data directory, to /ready/ 200 (ms) | ${med(first)} | <= ${TARGETS.firstMs} | ${mark(med(first) <= TARGETS.firstMs)} |\n` +
      `| restart, existing data directory (ms) | ${med(restart)} | <= ${TARGETS.restartMs} | ${mark(med(restart) <= TARGETS.restartMs)} |\n` +
      `| peak RSS at ready, first start (MB) | ${med(firstRss)} | <= ${TARGETS.rssMb} | ${mark(med(firstRss) <= TARGETS.rssMb)} |\n` +
      `| peak RSS at ready, restart (MB) | ${med(restartRss)} | <= ${TARGETS.rssMb} | ${mark(med(restartRss) <= TARGETS.rssMb)} |\n`,
  );
  process.stdout.write(`\nmachine speed at end: ${machineSpeedMs()} ms; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
