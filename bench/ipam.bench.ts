/**
 * IPAM benchmark (issues 6 and 25): loads 100,000 prefixes and 100,000 IP addresses through the
 * bulk API, then times on one connection: 1,000-address list pages, a client's walk over all
 * 100,000 addresses by `next` links (pages of 1,000, timed whole), `contains` / `within` filters
 * over the 100,000 prefixes, and available-ips on an empty /8 and on a nearly full /16, with
 * statements per request.
 *
 * Data: 10.0.0.0/8 > 99 /16 > 9,898 /24 (100 per /16) and 90,000 /28 (1,000 in each of the first
 * 90 /16s, above its /24s), 11.0.0.0/8 (empty) and 172.16.0.0/16; 65,000 addresses fill
 * 172.16.0.0/16 from the bottom (534 free, all at the top: the worst case for finding free
 * space), 35,000 go 100 per /24 into 350 of the /24s. Between the load and the reads the tables
 * are vacuumed and analysed, as autovacuum would do after such a load. The timed bulk creates
 * are the first 10,000 prefixes and every address (1,000 per request); the /28s go in
 * requests of 10,000 (untimed), parents before children, so no child is re-parented.
 *
 * Usage: npm run bench:ipam -- --db=postgres   (pglite | postgres | mysql)
 *   --port=18556: the server's port.
 *   --reuse: keep a database a previous run loaded (netkeel_bench_ipam, checked by its counts)
 *     and time only the reads: runs of two builds on the same data (the load takes minutes).
 *   --server=<dist/src/main.js of another build>: time that build (e.g. the base of a change,
 *     built apart as docs/performance.md says for bench:cpu's --compare) instead of this one.
 */
import os from 'node:os';
import { resolve } from 'node:path';
import { args, benchDbs, benchDatabase, databaseThreads, machineHeader, machineSpeedMs, measurer, peakRssMb, requester, startServer, stopProcess, vacuumer } from './support';

type Obj = Record<string, any>;

// Issue 6's bounds, and issue 25's where it sets one (the whole walk, available-ips, bulk create).
const TARGETS: Record<string, string> = {
  'bulk create 1,000 addresses': '<= 200 ms (issue 25: >= 5,000 objects/s; issue 6: 1,000 ms)',
  'page of 1,000 addresses': '<= 40 ms median',
  'walk 100,000 addresses by next links, pages of 1,000': '<= 8 s in total (issue 25)',
  'contains=<address> over 100,000 prefixes': '<= 10 ms',
  'within=<a /16> over 100,000 prefixes': '<= 10 ms (issue 25)',
  'available-ips, empty /8': '<= 20 ms (issue 25; issue 6: 50 ms)',
  'available-ips, nearly full /16': '<= 20 ms (issue 25; issue 6: 50 ms)',
};

/** The /24s of 10.0.0.0/8 (100 in each of 99 /16s, less two): the first 350 get 100 addresses each. */
function slash24s(): string[] {
  const out: string[] = [];
  for (let x = 0; x < 99; x++) for (let y = 0; y < 100; y++) out.push(`10.${x}.${y}.0/24`);
  return out.slice(0, -2);
}

/** 10,000 prefixes timed in requests of 1,000 (the /8s and /16s first: parents before children). */
function firstPrefixes(slash24: string[]): Obj[] {
  return ['10.0.0.0/8', '11.0.0.0/8', '172.16.0.0/16', ...Array.from({ length: 99 }, (_, x) => `10.${x}.0.0/16`), ...slash24].map((prefix, i) => ({
    prefix,
    status: 'Active',
    type: prefix.endsWith('/24') || prefix === '172.16.0.0/16' ? 'network' : 'container',
    description: `p${i}`,
  }));
}

/** 90,000 /28s: 1,000 in each of 10.0.0.0/16 .. 10.89.0.0/16, from x.100.0/28 up (above the /24s). */
function slash28s(): Obj[] {
  const out: Obj[] = [];
  for (let x = 0; x < 90; x++) {
    for (let k = 0; k < 1000; k++) out.push({ prefix: `10.${x}.${100 + (k >> 4)}.${(k & 15) << 4}/28`, status: 'Active', description: `q${x * 1000 + k}` });
  }
  return out;
}

/** 65,000 addresses from the bottom of 172.16.0.0/16, then 100 in each of the first 350 /24s. */
function addressList(slash24: string[]): string[] {
  const out: string[] = [];
  for (let n = 1; n <= 65000; n++) out.push(`172.16.${n >> 8}.${n & 255}/16`);
  for (const p of slash24.slice(0, 350)) for (let h = 1; h <= 100; h++) out.push(p.replace(/0\/24$/, `${h}/24`));
  return out;
}

const PREFIXES = 100_000;
const ADDRESSES = 100_000;
/** The description of the addresses the allocation scenario makes: removed afterwards, so a kept database stays as loaded. */
const ALLOCATED = 'bench-allocated';

async function main(): Promise<void> {
  const a = args();
  const [kind] = benchDbs(a.db, 'postgres', true);
  const port = Number(a.port ?? 18556);
  const reuse = 'reuse' in a && kind !== 'pglite';
  process.stdout.write(machineHeader());
  const env = await benchDatabase(kind, 'netkeel_bench_ipam', reuse);
  const vacuum = kind === 'pglite' ? null : vacuumer(kind, env.DATABASE_URL, ['ipam_prefix', 'ipam_ipaddress']);
  const script = a.server ? resolve(a.server) : undefined;
  let server = await startServer(env, port, { script });
  const one = requester(port, 1);
  const { ok, measured, meter, report, timed, table } = measurer(one, TARGETS, { serverPid: () => server.pid!, database: kind === 'pglite' ? null : databaseThreads(kind, env.DATABASE_URL) });
  const count = async (path: string) => (JSON.parse(ok(await one('GET', `${path}?limit=1`), 200).body) as Obj).count as number;
  const removeAllocated = async () => {
    const made = (JSON.parse(ok(await one('GET', `/api/ipam/ip-addresses/?description=${ALLOCATED}&limit=1000`), 200).body) as Obj).results as Obj[];
    if (made.length) ok(await one('DELETE', '/api/ipam/ip-addresses/', made.map((x) => ({ id: x.id }))), 204);
  };

  try {
    const slash24 = slash24s();
    const addresses = addressList(slash24);
    if (reuse) await removeAllocated();
    const loaded = reuse && (await count('/api/ipam/prefixes/')) === PREFIXES && (await count('/api/ipam/ip-addresses/')) === ADDRESSES;
    if (loaded) process.stdout.write(`reusing the loaded database: ${PREFIXES} prefixes, ${ADDRESSES} addresses\n`);
    else {
      if (reuse) {
        // Not what this benchmark loads: load it afresh.
        await stopProcess(server);
        Object.assign(env, await benchDatabase(kind, 'netkeel_bench_ipam'));
        server = await startServer(env, port, { script });
      }
      // ---- load ----
      const prefixes = firstPrefixes(slash24);
      const loadTimes: number[] = [];
      const loadStatements: number[] = [];
      const t0 = Date.now();
      for (let i = 0; i < prefixes.length; i += 1000) {
        const { r, statements } = await measured('POST', '/api/ipam/prefixes/', prefixes.slice(i, i + 1000), 201);
        loadTimes.push(r.ms);
        loadStatements.push(statements);
      }
      report('bulk create 1,000 prefixes', loadTimes, loadStatements);
      const more = slash28s();
      for (let i = 0; i < more.length; i += 10000) ok(await one('POST', '/api/ipam/prefixes/', more.slice(i, i + 10000)), 201);
      process.stdout.write(`loaded ${prefixes.length + more.length} prefixes in ${Date.now() - t0} ms\n`);

      const ipTimes: number[] = [];
      const ipStatements: number[] = [];
      const t1 = Date.now();
      for (let i = 0; i < addresses.length; i += 1000) {
        const body = addresses.slice(i, i + 1000).map((address) => ({ address, status: 'Active', namespace: 'Global' }));
        const { r, statements } = await measured('POST', '/api/ipam/ip-addresses/', body, 201);
        ipTimes.push(r.ms);
        ipStatements.push(statements);
      }
      process.stdout.write(`loaded ${addresses.length} addresses in ${Date.now() - t1} ms\n`);
      report('bulk create 1,000 addresses', ipTimes, ipStatements);
    }

    // Fresh bulk-loaded tables have no statistics and no visibility map yet; autovacuum would
    // fix that within a minute of the load. Do it now so the reads measure the steady state.
    if (vacuum) {
      const t2 = Date.now();
      await vacuum();
      process.stdout.write(`VACUUM/ANALYZE after the load: ${Date.now() - t2} ms\n`);
    }

    // ---- reads, one connection ----
    process.stdout.write(`load average before the reads: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    const id = async (p: string) => (JSON.parse(ok(await one('GET', `/api/ipam/prefixes/?prefix=${p}`), 200).body) as Obj).results[0].id as string;
    const offsets = Array.from({ length: 30 }, (_, i) => (i * 3331) % 99000);
    await timed('page of 1,000 addresses', offsets.map((o) => `/api/ipam/ip-addresses/?limit=1000&offset=${o}`));
    // A client walking every address: the first page, then each page's `next` link until none.
    {
      const walkStatements: number[] = [];
      let path: string | null = '/api/ipam/ip-addresses/?limit=1000';
      let pages = 0;
      let seen = 0;
      const used = await meter();
      const start = process.hrtime.bigint();
      while (path) {
        const { r, statements } = await measured('GET', path);
        const body = JSON.parse(r.body) as Obj;
        walkStatements.push(statements);
        seen += body.results.length;
        pages++;
        path = body.next ? ((u) => u.pathname + u.search)(new URL(body.next)) : null;
      }
      const total = Number(process.hrtime.bigint() - start) / 1e6;
      if (seen !== addresses.length) throw new Error(`the walk saw ${seen} addresses, not ${addresses.length}`);
      // One row: the whole walk's time (the status requests that read the statement counter included).
      // CPU: the whole walk's.
      report('walk 100,000 addresses by next links, pages of 1,000', [total], [Math.round(walkStatements.reduce((a, b) => a + b, 0) / pages)], await used(1));
      process.stdout.write(`walk: ${pages} pages, ${seen} addresses in ${Math.round(total)} ms\n`);
    }
    await timed('page of 1,000 prefixes', offsets.map((o) => `/api/ipam/prefixes/?limit=1000&offset=${o % 9000}`));
    await timed('contains=<address> over 100,000 prefixes', offsets.map((o, i) => `/api/ipam/prefixes/?contains=10.${i % 99}.${o % 100}.7`));
    await timed('within=<a /16> over 100,000 prefixes', offsets.map((_, i) => `/api/ipam/prefixes/?within=10.${(i * 7) % 99}.0.0/16`));
    await timed('network__net_contains_or_equals over 100,000 prefixes', offsets.map((_, i) => `/api/ipam/prefixes/?network__net_contains_or_equals=10.${i % 99}.${i}.0/24`));
    await timed('host__net_host_contained=<a /24> over 100,000 addresses', offsets.map((_, i) => `/api/ipam/ip-addresses/?host__net_host_contained=${slash24[i * 10]}`));
    const empty8 = await id('11.0.0.0/8');
    const full16 = await id('172.16.0.0/16');
    await timed('available-ips, empty /8', offsets.map(() => `/api/ipam/prefixes/${empty8}/available-ips/`));
    await timed('available-ips, nearly full /16', offsets.map(() => `/api/ipam/prefixes/${full16}/available-ips/`));
    await timed('allocate 1 address, nearly full /16', offsets.slice(0, 20).map(() => `/api/ipam/prefixes/${full16}/available-ips/`), 'POST', () => ({ status: 'Active', description: ALLOCATED }), 201);
    await removeAllocated();
    const ten8 = await id('10.0.0.0/8');
    await timed('available-prefixes, /8 with 99 children', offsets.slice(0, 20).map(() => `/api/ipam/prefixes/${ten8}/available-prefixes/`));

    table(`netkeel IPAM on ${kind}: ${PREFIXES} prefixes, ${ADDRESSES} addresses`);
    process.stdout.write(`server peak RSS: ${peakRssMb(server.pid!)} MB\n`);
    process.stdout.write(`machine speed: a fixed JavaScript workload took ${machineSpeedMs()} ms (lower is faster; compare runs by it)\n`);
    process.stdout.write(`load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  } finally {
    await stopProcess(server);
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
