/**
 * Bulk-write benchmark (issue 25): requests of 1,000 objects through the bulk API and CSV
 * import, timed on one connection, with objects per second and statements per request.
 *
 * Per database, on a fresh `netkeel_bench_bulk`:
 * - setup: a nestable location type, a root location, and 10.0.0.0/8 > 100 /16 > 1,000 /24
 *   prefixes (the parents the addresses are placed under);
 * - `--rounds` (default 5) of each, in this order, every request 1,000 objects:
 *   create locations (each the child of the root; type and status by id and name), create IP
 *   addresses (parent prefix resolved, namespace by name), CSV import of locations (natural-key
 *   columns) and of IP addresses, PATCH locations and addresses (a description), DELETE
 *   locations and addresses (the created ones); the tables grow by the rounds' rows, as they would.
 *
 * The server's CPU time per request is read from /proc around each request: on a shared machine
 * it moves less than the wall time. `--profile`: the timed requests run under V8's profiler
 * (bench/cpu-hook.ts), written to `bulk-<db>.cpuprofile` in the working directory; with
 * NK_PROFILE=heap in the environment, under its sampling heap profiler instead, every allocation
 * counted (`bulk-<db>.heapprofile`).
 *
 * Usage: npm run bench:bulk -- --db=postgres,mysql   (pglite | postgres | mysql; --rounds=5)
 */
import { join } from 'node:path';
import { args, BenchDb, benchDbs, benchDatabase, cpuMs, machineSpeedMs, measurer, peakRssMb, requester, startServer, stopProcess } from './support';

type Obj = Record<string, any>;

const N = 1000;

const TARGETS: Record<string, string> = {
  'create 1,000 locations': '>= 5,000 objects/s',
  'create 1,000 IP addresses': '>= 5,000 objects/s',
  'CSV import 1,000 locations': '>= 5,000 objects/s',
  'CSV import 1,000 IP addresses': '>= 5,000 objects/s',
  'PATCH 1,000 locations': '<= 0.3 s',
  'PATCH 1,000 IP addresses': '<= 0.3 s',
  'DELETE 1,000 locations': '<= 0.3 s',
  'DELETE 1,000 IP addresses': '<= 0.3 s',
};

interface Result {
  name: string;
  times: number[];
  statements: number[];
  /** The server process's CPU time (user + system) per request, ms. */
  cpu: number[];
}

async function benchOne(kind: BenchDb, rounds: number, port: number, profile: boolean): Promise<{ results: Result[]; rss: number; version: string }> {
  const env = await benchDatabase(kind, 'netkeel_bench_bulk');
  const server = await startServer(env, port, profile ? { execArgv: ['-r', join(__dirname, 'cpu-hook.js')], ipc: true } : {});
  const tell = (m: object, answer: string) =>
    new Promise<void>((resolve) => {
      const on = (r: { profile?: string }) => r.profile === answer && (server.off('message', on), resolve());
      server.on('message', on);
      server.send(m);
    });
  const one = requester(port, 1);
  const { ok, measured } = measurer(one, TARGETS);
  const results: Result[] = [];
  const timed = async (name: string, method: string, path: string, body: unknown, status: number, contentType?: string) => {
    let res = results.find((r) => r.name === name);
    if (!res) results.push((res = { name, times: [], statements: [], cpu: [] }));
    const cpu = cpuMs(server.pid!);
    const { r, statements } = await measured(method, path, body, status, contentType);
    res.cpu.push(cpuMs(server.pid!) - cpu);
    res.times.push(r.ms);
    res.statements.push(statements);
    return r.body ? JSON.parse(r.body) : undefined;
  };
  try {
    const post = async (path: string, body: unknown) => JSON.parse(ok(await one('POST', path, body), 201).body);
    const version = String(JSON.parse(ok(await one('GET', '/api/status/'), 200).body).database?.version ?? kind);
    const type = await post('/api/dcim/location-types/', { name: 'Site', content_types: ['dcim.location', 'ipam.prefix'], nestable: true });
    const root = await post('/api/dcim/locations/', { name: 'root', location_type: type.id, status: 'Active' });
    const prefixes = ['10.0.0.0/8', ...Array.from({ length: 100 }, (_, x) => `10.${x}.0.0/16`)];
    for (let x = 0; x < 100; x++) for (let y = 0; y < 10; y++) prefixes.push(`10.${x}.${y}.0/24`);
    for (let i = 0; i < prefixes.length; i += N) {
      await post('/api/ipam/prefixes/', prefixes.slice(i, i + N).map((prefix) => ({ prefix, status: 'Active', type: prefix.endsWith('/24') ? 'network' : 'container' })));
    }
    // One warm-up request of each kind (V8 compiles the write path), not timed.
    const warm = await post('/api/dcim/locations/', Array.from({ length: 50 }, (_, i) => ({ name: `warm-${i}`, location_type: type.id, status: 'Active', parent: root.id })));
    ok(await one('PATCH', '/api/dcim/locations/', warm.map((l: Obj) => ({ id: l.id, description: 'warm' }))), 200);
    ok(await one('DELETE', '/api/dcim/locations/', warm.map((l: Obj) => ({ id: l.id }))), 204);

    if (profile) await tell({ profile: 'start', intervalUs: 500 }, 'started');
    // An address i (1..1,000) of round r: 10.<99-r>.<i >> 8>.<i & 255>/24, under its /24 (rounds
    // count down from the top /16, so that no CSV address meets a JSON one).
    const address = (x: number, i: number) => `10.${x}.${i >> 8}.${i & 255}/24`;
    const created: { locations: string[]; addresses: string[] }[] = [];
    for (let r = 0; r < rounds; r++) {
      const locations = await timed('create 1,000 locations', 'POST', '/api/dcim/locations/', Array.from({ length: N }, (_, i) => ({ name: `loc-${r}-${i}`, location_type: type.id, status: 'Active', parent: root.id, facility: `F${i}` })), 201);
      const addresses = await timed('create 1,000 IP addresses', 'POST', '/api/ipam/ip-addresses/', Array.from({ length: N }, (_, i) => ({ address: address(r, i + 1), status: 'Active', namespace: 'Global' })), 201);
      created.push({ locations: locations.map((l: Obj) => l.id), addresses: addresses.map((a: Obj) => a.id) });
      const csvLocations = ['name,location_type__name,status__name,parent__name,facility', ...Array.from({ length: N }, (_, i) => `csv-${r}-${i},Site,Active,root,C${i}`)].join('\n');
      await timed('CSV import 1,000 locations', 'POST', '/api/dcim/locations/', csvLocations, 201, 'text/csv');
      const csvAddresses = ['address,status__name,namespace__name', ...Array.from({ length: N }, (_, i) => `${address(99 - r, i + 1)},Active,Global`)].join('\n');
      await timed('CSV import 1,000 IP addresses', 'POST', '/api/ipam/ip-addresses/', csvAddresses, 201, 'text/csv');
    }
    for (let r = 0; r < rounds; r++) {
      await timed('PATCH 1,000 locations', 'PATCH', '/api/dcim/locations/', created[r].locations.map((id) => ({ id, description: `patched ${r}` })), 200);
      await timed('PATCH 1,000 IP addresses', 'PATCH', '/api/ipam/ip-addresses/', created[r].addresses.map((id) => ({ id, description: `patched ${r}` })), 200);
    }
    for (let r = 0; r < rounds; r++) {
      await timed('DELETE 1,000 locations', 'DELETE', '/api/dcim/locations/', created[r].locations.map((id) => ({ id })), 204);
      await timed('DELETE 1,000 IP addresses', 'DELETE', '/api/ipam/ip-addresses/', created[r].addresses.map((id) => ({ id })), 204);
    }
    if (profile) await tell({ profile: 'stop', file: join(process.cwd(), `bulk-${kind}.cpuprofile`) }, 'written'); // .heapprofile with NK_PROFILE=heap
    return { results, rss: peakRssMb(server.pid!), version };
  } finally {
    await stopProcess(server);
  }
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

async function main(): Promise<void> {
  const a = args();
  const kinds = benchDbs(a.db, 'postgres,mysql');
  const rounds = Number(a.rounds ?? 5);
  const port = Number(a.port ?? 18557);
  process.stdout.write(`node ${process.version}; machine speed at the start: ${machineSpeedMs()} ms (a fixed JavaScript workload; lower is faster)\n`);
  for (const kind of kinds) {
    const { results, rss, version } = await benchOne(kind, rounds, port, 'profile' in a);
    const rows = results.map((r) => {
      const s = median(r.times) / 1000;
      const stmt = Math.min(...r.statements) === Math.max(...r.statements) ? String(r.statements[0]) : `${Math.min(...r.statements)}-${Math.max(...r.statements)}`;
      return `| ${r.name} | ${r.times.length} | ${s.toFixed(3)} | ${(Math.max(...r.times) / 1000).toFixed(3)} | ${Math.round(N / s).toLocaleString('en-US')} | ${median(r.cpu)} | ${stmt} | ${TARGETS[r.name] ?? ''} |`;
    });
    process.stdout.write(
      `\n## netkeel bulk writes on ${kind} (${version}), requests of ${N}\n\n| request | n | median s | max s | objects/s (median) | server CPU ms (median) | statements/request | target |\n|---|---|---|---|---|---|---|---|\n${rows.join('\n')}\n\nserver peak RSS: ${rss} MB\n`,
    );
  }
  process.stdout.write(`machine speed at the end: ${machineSpeedMs()} ms\n`);
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
