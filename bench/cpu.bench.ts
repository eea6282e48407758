/**
 * CPU per request, netkeel against the floor (issue 25's per-request overhead). Requests per
 * second on a shared machine follow whatever else runs on it; the CPU time a server spends per
 * request much less so, and on a 2-core machine it is what requests per second at saturation
 * track. So this benchmark sends a fixed number of requests at a fixed concurrency to each server
 * in turn (netkeel, floor, floor, netkeel, ...) and divides the CPU time each process used
 * (/proc/<pid>/stat: user + system, every thread) by the number of requests. It reads the same of
 * the database's server processes serving the benchmark's database (PostgreSQL's backends; the
 * threads of MariaDB's connections, or MySQL's where performance_schema is on) and of the
 * benchmark process itself (the client).
 *
 * With `--profile`, each server is then profiled under the same load (V8's sampling profiler
 * through bench/cpu-hook.ts, the measured load alone), the profiles are written next to the
 * working directory (`cpu-<server>-<scenario>.cpuprofile`: open them in Chrome's DevTools or
 * speedscope), and each server's CPU is listed stage by stage (bench/cpu-profile.ts): the system
 * time (the kernel's work: socket reads and writes) is a line of its own, and the user time is
 * shared by the stages as the samples are, each sample going to the stage of the nearest frame on
 * its stack that is netkeel's or a library's (a V8 builtin or Node's internals count for the code
 * that called them), in µs per request.
 *
 * Usage: npm run bench:cpu -- [--db=postgres|mysql] [--requests=2000] [--warmup=4000] [--connections=8]
 *   [--rounds=5] [--scenarios=detail,list50] (also list1000, list1000-depth1) [--profile] [--interval=200] [--reuse] [--port=18671]
 *   [--compare=<another build's dist/src/main.js>] [--compare-node-options="<node options>"] [--database=netkeel_bench_cpu]
 *   --requests: per server per round; --warmup: requests per server before the first round; --rounds: measured rounds per server (the median is shown);
 *   --interval: the profiler's sampling interval in µs; --reuse: keep the database an earlier run
 *   seeded (netkeel_bench_cpu) instead of seeding it again; --compare: a third server, another
 *   build of netkeel (a copy of dist/ from before a change, beside a node_modules), measured in
 *   turn with the others: a change's effect under the same load; --compare-node-options: node's
 *   options for the compared server after `npm start`'s (e.g. "--max-semi-space-size=8"; without
 *   --compare, the compared server is this build); --database: the database's name
 *   (runs of their own side by side on one server: the database's CPU is read per database).
 */
import { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { args, benchDbs, benchDatabase, databaseThreads, machineSpeedMs, percentile, requester, startFloor, startServer, stopProcess, threadsCpuUs, TICK_US, vacuumer } from './support';
import { seed } from './locations';
import { stageTable } from './cpu-profile';

type Request = ReturnType<typeof requester>;
/** A server under measurement: netkeel, the floor, and another build of netkeel to compare with. */
interface Server {
  name: string;
  child: ChildProcess;
  request: Request;
}

const HOOK = join(__dirname, 'cpu-hook.js');

interface Sample {
  server: number;
  /** The server's system (kernel) time: its share of `server`. */
  kernel: number;
  database: number;
  client: number;
}

async function main(): Promise<void> {
  const a = args();
  const [kind] = benchDbs(a.db, 'postgres', true);
  if (kind !== 'postgres' && kind !== 'mysql') throw new Error('--db: postgres or mysql (the floor needs a database server)');
  const o = {
    requests: Number(a.requests ?? 2000),
    warmup: Number(a.warmup ?? 4000),
    connections: Number(a.connections ?? 8),
    rounds: Number(a.rounds ?? 5),
    scenarios: (a.scenarios ?? 'detail,list50').split(','),
    profile: 'profile' in a,
    interval: Number(a.interval ?? 200),
    port: Number(a.port ?? 18671),
    compare: a.compare ? resolve(a.compare) : null,
    // Read whole: its value holds '='.
    compareNodeOptions: (process.argv.find((x) => x.startsWith('--compare-node-options='))?.slice('--compare-node-options='.length) ?? '').split(/\s+/).filter(Boolean),
  };
  if (o.compareNodeOptions.length && !o.compare) o.compare = resolve(__dirname, '../src/main.js');
  const cpus = os.cpus();
  process.stdout.write(
    `machine: ${cpus.length} x ${cpus[0]?.model ?? '?'}, ${os.type()} ${os.release()}; node ${process.version}\n` +
      `load average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; machine speed ${machineSpeedMs()} ms\n` +
      `${o.requests} requests per server per round at ${o.connections} connections, ${o.rounds} rounds\n`,
  );

  const dbName = a.database ?? 'netkeel_bench_cpu';
  const env = await benchDatabase(kind, dbName, 'reuse' in a);
  const seeded = await locationIds(env, o.port).catch(() => []);
  if (seeded.length !== 2000) {
    if (seeded.length) Object.assign(env, await benchDatabase(kind, dbName));
    const seeder = await startServer(env, o.port);
    try {
      await seed(requester(o.port, 1));
    } finally {
      await stopProcess(seeder);
    }
    await vacuumer(kind, env.DATABASE_URL, ['dcim_location', 'tenancy_tenant', 'extras_taggeditem'])();
  }
  const ids = await locationIds(env, o.port);
  const paths: Record<string, string[]> = {
    detail: ids.map((id) => `/api/dcim/locations/${id}/`),
    list50: ['/api/dcim/locations/?limit=50'],
    list1000: ['/api/dcim/locations/?limit=1000'],
    // The floor serves depth 0 only (it ignores the parameter): read this one for netkeel's profile, against list1000.
    'list1000-depth1': ['/api/dcim/locations/?limit=1000&depth=1'],
  };
  for (const s of o.scenarios) if (!paths[s]) throw new Error(`--scenarios: unknown scenario ${s}`);

  const children: ChildProcess[] = [];
  try {
    const spawnOpts: { execArgv?: string[]; ipc?: boolean } = o.profile ? { execArgv: ['-r', HOOK], ipc: true } : {};
    const servers: Server[] = [];
    const add = async (name: string, port: number, start: Promise<ChildProcess>) => {
      const child = await start;
      children.push(child);
      servers.push({ name, child, request: requester(port, o.connections) });
    };
    await add('netkeel', o.port, startServer(env, o.port, spawnOpts));
    await add('floor', o.port + 1, startFloor(env, o.port + 1, spawnOpts));
    if (o.compare) await add('compared', o.port + 2, startServer(env, o.port + 2, { ...spawnOpts, script: o.compare, execArgv: [...(spawnOpts.execArgv ?? []), ...o.compareNodeOptions] }));
    const dbThreads = databaseThreads(kind, env.DATABASE_URL);
    const table: string[] = [];
    const stages: string[] = [];
    for (const scenario of o.scenarios) {
      const measured = new Map<Server, Sample[]>(servers.map((s) => [s, []]));
      // Warm-up: until V8 has compiled the hot paths (fewer left the first rounds 2x as costly).
      for (const s of servers) await load(s.request, paths[scenario], o.connections, o.warmup);
      // In turn, each round starting with the next server: a drift of the machine falls on all.
      for (let r = 0; r < o.rounds; r++) {
        for (let i = 0; i < servers.length; i++) {
          const s = servers[(r + i) % servers.length];
          measured.get(s)!.push(await cpuPerRequest(s.child.pid!, dbThreads, () => load(s.request, paths[scenario], o.connections, o.requests), o.requests));
        }
      }
      if ('verbose' in a) for (const s of servers) process.stdout.write(`  ${s.name} server µs per round: ${measured.get(s)!.map((x) => us(x.server)).join(' ')}\n`);
      const medians = new Map(servers.map((s) => [s, median(measured.get(s)!)]));
      process.stdout.write(`${scenario}: ${servers.map((s) => `${s.name} ${fmt(medians.get(s)!)}`).join('; ')} (µs per request, medians of ${o.rounds})
`);
      const [nk, fl, cmp] = servers.map((s) => medians.get(s)!);
      table.push(row(scenario, nk, fl, cmp));
      if (o.profile) {
        for (const s of servers) {
          const file = resolve(`cpu-${s.name}-${scenario}.cpuprofile`);
          await profile(s, paths[scenario], o, file);
          process.stdout.write(`profile: ${file}\n`);
          stages.push(stageTable(`${s.name}, ${scenario}`, JSON.parse(readFileSync(file, 'utf8')), o.requests, medians.get(s)!));
        }
      }
    }
    const compared = o.compare ? ` (compared: ${o.compare})` : '';
    process.stdout.write(
      `\n## CPU per request (${kind}; µs; median of ${o.rounds} rounds of ${o.requests} requests at ${o.connections} connections)${compared}\n\n` +
        '| scenario | netkeel: server / database / client | floor: server / database / client | server CPU netkeel / floor | req/s at saturation on ' +
        `${cpus.length} cores, estimated: netkeel / floor |${o.compare ? ' compared: server / database / client | server CPU netkeel / compared |' : ''}\n` +
        `|---|---|---|---|---|${o.compare ? '---|---|' : ''}\n${table.join('\n')}\n\n` +
        'Estimated req/s at saturation: the lower of one core for the (single-threaded) server and every core for server, database and client together.\n',
    );
    for (const t of stages) process.stdout.write(t);
  } finally {
    for (const c of children) await stopProcess(c);
  }
  process.stdout.write(`load average at end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; machine speed ${machineSpeedMs()} ms\n`);
}

/** The 2,000 seeded locations' ids, read through a netkeel started for it (none when the database is not seeded). */
async function locationIds(env: Record<string, string>, port: number): Promise<string[]> {
  const server = await startServer(env, port);
  try {
    const one = requester(port, 1);
    const out: string[] = [];
    for (const offset of [0, 1000]) {
      const r = await one('GET', `/api/dcim/locations/?limit=1000&offset=${offset}`);
      if (r.status !== 200) return [];
      out.push(...JSON.parse(r.body).results.map((x: { id: string }) => x.id));
    }
    return out;
  } finally {
    await stopProcess(server);
  }
}

/** `n` requests for `paths` in turn over `connections` loops (every answer must be a 200). */
async function load(request: Request, paths: string[], connections: number, n: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < n) {
        const path = paths[next++ % paths.length];
        const r = await request('GET', path);
        if (r.status !== 200) throw new Error(`${path}: ${r.status}: ${r.body.slice(0, 500)}`);
      }
    }),
  );
}

/** CPU time of a process (every thread, exited ones included), user and system, in µs. */
function processCpuUs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) * TICK_US, system: Number(fields[12]) * TICK_US };
}

/**
 * The server's, the database's and the client's CPU per request while `run` sends `n` requests.
 * The database's: the threads serving the database after the run, each counted from before the
 * run or, for a connection opened during it, whole (one closed during the run is not counted).
 */
async function cpuPerRequest(pid: number, dbThreads: () => Promise<{ pid: number; tid: number }[] | null>, run: () => Promise<void>, n: number): Promise<Sample> {
  const before = await dbThreads();
  const [server0, db0, client0] = [processCpuUs(pid), before ? threadsCpuUs(before) : null, process.cpuUsage()];
  await run();
  const client = process.cpuUsage(client0);
  const server1 = processCpuUs(pid);
  const kernel = (server1.system - server0.system) / n;
  const server = (server1.user - server0.user) / n + kernel;
  const after = db0 ? await dbThreads() : null;
  let database = NaN;
  if (db0 && after) {
    database = 0;
    for (const [k, us] of threadsCpuUs(after)) database += us - (db0.get(k) ?? 0);
    database /= n;
  }
  return { server, kernel, database, client: (client.user + client.system) / n };
}

function median(samples: Sample[]): Sample {
  const m = (k: keyof Sample) => percentile(samples.map((s) => s[k]), 50);
  return { server: m('server'), kernel: m('kernel'), database: m('database'), client: m('client') };
}

const us = (v: number) => (Number.isFinite(v) ? String(Math.round(v)) : 'n/a');
const fmt = (s: Sample) => `server ${us(s.server)} (kernel ${us(s.kernel)}), database ${us(s.database)}, client ${us(s.client)}`;

/** At saturation: one core for the server, every core for everything the machine does per request. */
function saturation(s: Sample): number {
  const total = s.server + (Number.isFinite(s.database) ? s.database : 0) + s.client;
  return Math.min(1e6 / s.server, (os.cpus().length * 1e6) / total);
}

function row(scenario: string, nk: Sample, fl: Sample, cmp?: Sample): string {
  const [a, b] = [saturation(nk), saturation(fl)];
  const three = (x: Sample) => `${us(x.server)} / ${us(x.database)} / ${us(x.client)}`;
  const compared = cmp ? ` ${three(cmp)} | ${(nk.server / cmp.server).toFixed(2)}x |` : '';
  return `| ${scenario} | ${three(nk)} | ${three(fl)} | ${(nk.server / fl.server).toFixed(2)}x | ${Math.round(a)} / ${Math.round(b)}: ${(a / b).toFixed(2)}x |${compared}`;
}

/** Profiles a server under the scenario's load (its IPC channel, bench/cpu-hook.ts) into `file`. */
async function profile(p: Server, paths: string[], o: { requests: number; connections: number; interval: number }, file: string): Promise<void> {
  const reply = (want: string) => new Promise<void>((ok) => p.child.on('message', function on(m: { profile?: string }) {
    if (m.profile !== want) return;
    p.child.off('message', on);
    ok();
  }));
  const started = reply('started');
  p.child.send({ profile: 'start', intervalUs: o.interval });
  await started;
  await load(p.request, paths, o.connections, o.requests);
  const written = reply('written');
  p.child.send({ profile: 'stop', file });
  await written;
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
