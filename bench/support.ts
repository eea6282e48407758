import { ChildProcess, spawn, StdioOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createConnection } from 'mysql2/promise';
import { serverNodeOptions } from '../src/core/testing/server-command';
import { pgliteVersion } from '../src/database/pglite/snapshot';

export type BenchDb = 'pglite' | 'postgres' | 'mysql';

const BENCH_DBS: readonly BenchDb[] = ['pglite', 'postgres', 'mysql'];

/**
 * The databases `--db` names (comma-separated; `fallback` without it), each one of BENCH_DBS:
 * anything else is refused rather than taken for one of them. `one`: the bench runs on a single
 * database, and a list is refused too.
 */
export function benchDbs(value: string | undefined, fallback: string, one = false): BenchDb[] {
  const kinds = (value ?? fallback).split(',').map((k) => k.trim());
  for (const k of kinds) if (!(BENCH_DBS as string[]).includes(k)) throw new Error(`--db: unknown database ${k} (${BENCH_DBS.join(' | ')})`);
  if (one && kinds.length !== 1) throw new Error(`--db: this benchmark runs on one database at a time, not ${kinds.join(', ')}`);
  return kinds as BenchDb[];
}

export const ADMIN_TOKEN = 'be0cbe0cbe0cbe0cbe0cbe0cbe0cbe0cbe0cbe0c';

/** Parses `--db=<kind>` and friends. */
export function args(): Record<string, string> {
  return Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
}

/**
 * A fresh database for the benchmark: a temp PGlite dir, or a recreated database on a server.
 * `keep`: the database on a server as it is (created when missing), for a benchmark that
 * reuses what an earlier run seeded.
 */
export async function benchDatabase(kind: BenchDb, name: string, keep = false): Promise<Record<string, string>> {
  if (kind === 'pglite') return { DATA_DIR: `/tmp/${name}-${process.pid}` };
  if (kind === 'postgres') {
    const base = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const c = new Client({ connectionString: base });
    await c.connect();
    const exists = (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount;
    if (!keep || !exists) {
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'`);
    }
    await c.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    return { DATABASE_URL: url.toString() };
  }
  const base = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
  const c = await createConnection({ uri: base });
  if (!keep) await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await c.query(`CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await c.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { DATABASE_URL: url.toString() };
}

/**
 * Starts a built script as a child process (so its own RSS can be read), resolving once it prints
 * `listening on`. `execArgv`: node's own options (a preloaded module); `ipc`: with an IPC channel.
 */
export function startProcess(script: string, env: Record<string, string>, o: { execArgv?: string[]; ipc?: boolean } = {}): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const stdio: StdioOptions = ['ignore', 'pipe', 'inherit', ...(o.ipc ? ['ipc' as const] : [])];
    const child = spawn(process.execPath, [...(o.execArgv ?? []), script], { env: { ...process.env, ...env }, stdio });
    child.stdout!.on('data', (b: Buffer) => b.toString().includes('listening on') && resolve(child));
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** Starts the built server (dist/src/main.js, or `o.script`), with the superuser token ADMIN_TOKEN. */
export function startServer(env: Record<string, string>, port: number, o: Parameters<typeof startProcess>[2] & { script?: string } = {}): Promise<ChildProcess> {
  // node's options as `npm start` gives them (a heap limit that keeps the RSS down).
  return startProcess(o.script ?? join(__dirname, '../src/main.js'), {
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    SUPERUSER_NAME: 'admin',
    SUPERUSER_PASSWORD: 'bench-password',
    SUPERUSER_API_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'error',
    EXPOSE_STATEMENT_COUNT: 'true',
  }, { ...o, execArgv: [...serverNodeOptions(), ...(o.execArgv ?? [])] });
}

/**
 * Starts the floor server (bench/floor/server.ts, built) on the database of `env` (PostgreSQL or
 * MySQL: `DATABASE_URL`), taking ADMIN_TOKEN as its token, so the same requester drives both.
 */
export function startFloor(env: Record<string, string>, port: number, o?: Parameters<typeof startProcess>[2]): Promise<ChildProcess> {
  if (!env.DATABASE_URL) throw new Error('the floor server needs a database server (DATABASE_URL)');
  return startProcess(join(__dirname, 'floor/server.js'), { DATABASE_URL: env.DATABASE_URL, PORT: String(port), HOST: '127.0.0.1', FLOOR_TOKEN: ADMIN_TOKEN }, o);
}

/** Stops a process started by startProcess and waits for it to exit (a PGlite data directory is free again). */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Peak resident set size of a process, in MB (Linux VmHWM). */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

export interface Response {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
  ms: number;
}

export function requester(port: number, sockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  /** `contentType`: the body is sent as it is (a string: CSV), with that type; else as JSON. */
  const send = (method: string, path: string, body?: unknown, contentType?: string, retried = false): Promise<Response> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : Buffer.from(contentType ? String(body) : JSON.stringify(body));
      const start = process.hrtime.bigint();
      const req = http.request(
        { host: '127.0.0.1', port, method, path, agent, headers: { Authorization: `Token ${ADMIN_TOKEN}`, 'Content-Type': contentType ?? 'application/json', ...(data ? { 'Content-Length': data.length } : {}) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
        },
      );
      req.on('error', (e: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed (its keep-alive timeout, 5 s) just as this GET was
        // sent on it: sent again, once, as Node's documentation of `reusedSocket` advises (a write
        // is not: it may have reached the server). Between scenarios a server's sockets sit idle
        // while the other servers are measured.
        if (method === 'GET' && req.reusedSocket && !retried && (e.code === 'ECONNRESET' || e.message === 'socket hang up')) resolve(send(method, path, body, contentType, true));
        else reject(e);
      });
      if (data) req.write(data);
      req.end();
    });
  return (method: string, path: string, body?: unknown, contentType?: string): Promise<Response> => send(method, path, body, contentType);
}

/**
 * Requests per second over `ms` of load: `connections` loops, each sending the next of `paths`
 * as soon as its previous answer is in (every answer must be a 200).
 */
export async function throughput(request: ReturnType<typeof requester>, paths: string[], connections: number, ms: number): Promise<number> {
  let done = 0;
  let next = 0;
  const start = process.hrtime.bigint();
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) {
        const path = paths[next++ % paths.length];
        const r = await request('GET', path);
        if (r.status !== 200) throw new Error(`${path}: ${r.status}: ${r.body.slice(0, 500)}`);
        done++;
      }
    }),
  );
  return done / (Number(process.hrtime.bigint() - start) / 1e9);
}

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export const round = (n: number) => Math.round(n * 10) / 10;

/**
 * What autovacuum does after a bulk load: statistics (and, on PostgreSQL, the visibility map),
 * so that reads are timed with the plans a settled database gets, not those of empty tables.
 */
export function vacuumer(kind: Exclude<BenchDb, 'pglite'>, url: string, mysqlTables: string[]): () => Promise<void> {
  return async () => {
    if (kind === 'postgres') {
      const c = new Client({ connectionString: url });
      await c.connect();
      await c.query('VACUUM ANALYZE');
      await c.end();
    } else {
      const c = await createConnection({ uri: url });
      await c.query(`ANALYZE TABLE ${mysqlTables.map((t) => `\`${t}\``).join(', ')}`);
      await c.end();
    }
  };
}

/**
 * How fast this machine runs JavaScript right now: the median of five timings of a fixed
 * workload (encoding and decoding 1,000 small objects 30 times), in ms; lower is faster. On a
 * shared VM it drifts by half between minutes, and so do the figures above it; printed with them
 * so that runs can be compared.
 */
export function machineSpeedMs(): number {
  const items = Array.from({ length: 1000 }, (_, i) => ({ id: `x${i}`, n: i, list: [1, 2, 3], nested: { text: `hello world ${i}` } }));
  const times: number[] = [];
  for (let run = 0; run < 5; run++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < 30; i++) JSON.parse(JSON.stringify(items));
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return round(percentile(times, 50));
}

export const TICK_US = 1e6 / 100; // /proc's clock ticks (USER_HZ)

/** CPU time of each of some threads, in µs, by `pid/tid` (none for one that is gone). */
export function threadsCpuUs(threads: { pid: number; tid: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of threads) {
    try {
      const fields = readFileSync(`/proc/${t.pid}/task/${t.tid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.set(`${t.pid}/${t.tid}`, (Number(fields[11]) + Number(fields[12])) * TICK_US);
    } catch {
      // the connection closed
    }
  }
  return out;
}

/**
 * The database server's threads that serve the benchmark's database: PostgreSQL's backends (a
 * process each), MariaDB's connection threads (its process list's TID; MySQL's from
 * performance_schema, when it is on). Read again for every measurement: pools open connections
 * as load comes.
 */
export function databaseThreads(kind: BenchDb, url: string): () => Promise<{ pid: number; tid: number }[] | null> {
  if (kind === 'postgres') {
    return async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      try {
        const { rows } = await c.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
        return rows.map((r) => ({ pid: r.pid, tid: r.pid }));
      } finally {
        await c.end();
      }
    };
  }
  return async () => {
    const c = await createConnection({ uri: url });
    try {
      const pid = mysqldPid();
      // MariaDB names each connection's thread in its process list; MySQL in performance_schema, when that is on.
      const [rows] = (await c
        .query(`SELECT TID AS tid FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()`)
        .catch(async () => {
          const [[on]] = (await c.query(`SELECT @@performance_schema AS on_`)) as any;
          if (!on.on_) return [null];
          return c.query(`SELECT THREAD_OS_ID AS tid FROM performance_schema.threads WHERE PROCESSLIST_DB = DATABASE() AND PROCESSLIST_ID <> CONNECTION_ID()`);
        })) as any;
      return rows ? (rows as { tid: number }[]).map((r) => ({ pid, tid: Number(r.tid) })) : null;
    } finally {
      await c.end();
    }
  };
}

/** The pid of the local mysqld / mariadbd. */
function mysqldPid(): number {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (/^(mysqld|mariadbd)$/.test(readFileSync(`/proc/${d}/comm`, 'utf8').trim())) return Number(d);
    } catch {
      // gone
    }
  }
  return NaN;
}

/** A process's CPU time so far (user + system), in ms, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU time used since `before` by the threads it holds, in ms. Threads that began meanwhile are
 * left out: MariaDB hands a new connection a cached thread, whose time is another connection's.
 */
function cpuSinceMs(before: Map<string, number>, threads: { pid: number; tid: number }[]): number {
  let us = 0;
  for (const [key, now] of threadsCpuUs(threads)) if (before.has(key)) us += now - before.get(key)!;
  return us / 1000;
}

/**
 * Timed requests on one connection with their statement counts (read from the statement counter
 * around each request, its authentication included), and the table of results: what every
 * benchmark reports, one row per scenario. With `cpu`, each scenario also gets the CPU time per
 * request of the server process and of the database's threads serving the benchmark's database
 * (`databaseThreads`), status requests included: on a shared machine they move much less than
 * the wall time.
 */
export function measurer(
  one: ReturnType<typeof requester>,
  targets: Record<string, string>,
  cpu?: { serverPid: () => number; database: (() => Promise<{ pid: number; tid: number }[] | null>) | null },
) {
  const rows: string[] = [];
  const ok = (r: Response, status: number) => {
    if (r.status !== status) throw new Error(`${r.status}: ${r.body.slice(0, 500)}`);
    return r;
  };
  const measured = async (method: string, path: string, body?: unknown, status = 200, contentType?: string) => {
    const before = Number((await one('GET', '/api/status/')).headers['x-statement-count']);
    const r = ok(await one(method, path, body, contentType), status);
    return { r, statements: Number(r.headers['x-statement-count']) - before };
  };
  const report = (name: string, times: number[], statements: number[], used?: { server: number; database: number | null }) => {
    const stmt = Math.min(...statements) === Math.max(...statements) ? String(statements[0]) : `${Math.min(...statements)}-${Math.max(...statements)}`;
    const cpuCells = !cpu ? '' : ` ${used ? round(used.server) : ''} | ${used?.database != null ? round(used.database) : ''} |`;
    rows.push(`| ${name} | ${times.length} | ${round(percentile(times, 50))} | ${round(percentile(times, 95))} | ${round(Math.max(...times))} |${cpuCells} ${stmt} | ${targets[name] ?? ''} |`);
    process.stdout.write(`${name}: median ${round(percentile(times, 50))} ms\n`);
  };
  /** Starts counting CPU (with `cpu`); the function returned gives what was used since, per request of `n`. */
  const meter = async () => {
    if (!cpu) return async () => undefined;
    const server = cpuMs(cpu.serverPid());
    const threads = cpu.database ? await cpu.database() : null;
    const database = threads ? threadsCpuUs(threads) : null;
    return async (n: number) => {
      const after = database && cpu.database ? await cpu.database() : null;
      return { server: (cpuMs(cpu.serverPid()) - server) / n, database: database && after ? cpuSinceMs(database, after) / n : null };
    };
  };
  /** Each path after three warm-up requests; `body` makes a fresh body per request. */
  const timed = async (name: string, paths: string[], method = 'GET', body?: () => unknown, status = 200) => {
    for (const p of paths.slice(0, 3)) await measured(method, p, body?.(), status);
    const times: number[] = [];
    const statements: number[] = [];
    const used = await meter();
    for (const p of paths) {
      const { r, statements: n } = await measured(method, p, body?.(), status);
      times.push(r.ms);
      statements.push(n);
    }
    report(name, times, statements, await used(paths.length));
  };
  const table = (title: string) => {
    const [cpuHead, cpuRule] = cpu ? [' server CPU ms/request | database CPU ms/request |', '---|---|'] : ['', ''];
    process.stdout.write(
      `\n## ${title}\n\n| request | n | median ms | p95 ms | max ms |${cpuHead} statements/request | target |\n|---|---|---|---|---|${cpuRule}---|---|\n${rows.join('\n')}\n\n`,
    );
  };
  return { ok, measured, meter, report, timed, table };
}

/** The lines a benchmark's output starts with: the machine and its load, node's and PGlite's versions, the machine's speed now. */
export function machineHeader(): string {
  const cpus = os.cpus();
  return (
    `machine: ${cpus.length} x ${cpus[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, ${os.type()} ${os.release()}; ` +
    `load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\nnode ${process.version}, PGlite ${pgliteVersion()}\n` +
    `machine speed at start: ${machineSpeedMs()} ms (a fixed JavaScript workload; lower is faster)\n`
  );
}
