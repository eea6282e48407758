/**
 * List-page benchmark, side by side with the floor (issues 2 and 25). On each database it seeds
 * 2,000 tenants and 2,000 locations through netkeel's bulk API (one location the child of
 * another, with two tags, so that ancestry and tags are served), analyses the tables as
 * autovacuum would, then restarts netkeel and starts the floor server (bench/floor/server.ts: plain
 * node:http and pg / mysql2 reading the same tables) next to it, checks once that both give the
 * same bodies for the same pages and objects (keys, their order and values; the run fails
 * otherwise), and measures both under the same load:
 *
 * - a location's detail at 8 connections (requests/s; the 2,000 locations in turn),
 * - the first page of 50 locations at 8 connections (requests/s),
 * - pages of 1,000 locations at 1 connection (median ms; the two pages in turn), and netkeel's
 *   same pages at depth 1 against depth 0,
 * - each server's peak RSS under that load (a fresh process for each: the seeding is not in it),
 *
 * with netkeel / floor ratios next to the issue's targets. Loads alternate between the servers
 * (netkeel, floor, floor, netkeel) so that a drift of the machine's speed falls on both. On PGlite
 * (an embedded database no other process can open) netkeel runs alone.
 *
 * Usage: npm run bench -- [--db=postgres,mysql,pglite] [--seconds=10] [--rounds=40] [--port=18555]
 *   --seconds: load per server per 8-connection scenario; --rounds: pages of 1,000 per server.
 */
import { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import {
  args,
  BenchDb,
  benchDatabase,
  benchDbs,
  machineHeader,
  machineSpeedMs,
  measurer,
  peakRssMb,
  percentile,
  requester,
  round,
  startFloor,
  startServer,
  stopProcess,
  throughput,
  vacuumer,
} from './support';
import { seed } from './locations';

type Request = ReturnType<typeof requester>;
type Obj = Record<string, any>;

/** The issue's targets, as netkeel / floor ratios (and PGlite's RSS bound). */
const TARGETS = {
  detail: { text: '>= 0.6x', met: (r: number) => r >= 0.6 },
  list50: { text: '>= 0.8x', met: (r: number) => r >= 0.8 },
  page1000: { text: '<= 1.0x', met: (r: number) => r <= 1.0 },
  depth: { text: '<= 1.3x', met: (r: number) => r <= 1.3 },
  rss: { text: '<= 1.5x', met: (r: number) => r <= 1.5 },
  pgliteRss: { text: '<= 300 MB', met: (mb: number) => mb <= 300 },
  mariadb: { text: '<= 1.3x', met: (r: number) => r <= 1.3 },
};

interface Figures {
  detailRps: number;
  list50Rps: number;
  page1000Ms: number;
  rssMb: number;
}

interface Result {
  kind: BenchDb;
  version: string;
  netkeel: Figures & { page1000Depth1Ms: number; seedRssMb: number; statements: Record<string, number> };
  floor: Figures | null;
}

async function main(): Promise<void> {
  const a = args();
  const kinds = benchDbs(a.db, 'postgres,mysql,pglite');
  const o = { seconds: Number(a.seconds ?? 10), rounds: Number(a.rounds ?? 40), port: Number(a.port ?? 18555) };
  process.stdout.write(
    machineHeader() +
      `load: ${o.seconds} s per server per 8-connection scenario, ${o.rounds} pages of 1,000 per server\n`,
  );
  const results: Result[] = [];
  for (const kind of kinds) results.push(await onDatabase(kind, o));
  summary(results);
  process.stdout.write(`machine speed at end: ${machineSpeedMs()} ms; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
}

async function onDatabase(kind: BenchDb, o: { seconds: number; rounds: number; port: number }): Promise<Result> {
  process.stdout.write(`\n# ${kind}\n\n`);
  const env = await benchDatabase(kind, 'netkeel_bench_list');
  const seeder = await startServer(env, o.port);
  let seedRssMb: number;
  try {
    await seed(requester(o.port, 1));
    seedRssMb = peakRssMb(seeder.pid!);
  } finally {
    await stopProcess(seeder);
  }
  // Fresh bulk-loaded tables have no statistics yet; autovacuum would gather them shortly.
  if (kind !== 'pglite') await vacuumer(kind, env.DATABASE_URL, ['dcim_location', 'tenancy_tenant', 'extras_taggeditem'])();

  const servers: ChildProcess[] = [];
  try {
    const netkeel = await startServer(env, o.port);
    servers.push(netkeel);
    const floor = kind === 'pglite' ? null : await startFloor(env, o.port + 1);
    if (floor) servers.push(floor);
    const nk1 = requester(o.port, 1);
    const fl1 = floor ? requester(o.port + 1, 1) : null;
    const status = JSON.parse((await nk1('GET', '/api/status/')).body);
    const version = `${status.database.version}`;
    process.stdout.write(`database: ${version}\n`);

    const ids: string[] = [];
    for (const offset of [0, 1000]) ids.push(...JSON.parse((await nk1('GET', `/api/dcim/locations/?limit=1000&offset=${offset}`)).body).results.map((x: Obj) => x.id));
    if (ids.length !== 2000) throw new Error(`expected 2,000 locations, found ${ids.length}`);
    const detailPaths = ids.map((id) => `/api/dcim/locations/${id}/`);
    const list50 = ['/api/dcim/locations/?limit=50'];
    const pages = ['/api/dcim/locations/?limit=1000', '/api/dcim/locations/?limit=1000&offset=1000'];

    if (fl1) await checkSameBodies(nk1, fl1, o.port, o.port + 1, ids);

    // Statements per request (netkeel's counter; its authentication included).
    const { measured } = measurer(nk1, {});
    const statements: Record<string, number> = {};
    for (const [name, path] of [['detail', detailPaths[0]], ['list50', list50[0]], ['page1000', pages[0]]]) statements[name] = (await measured('GET', path)).statements;

    // 8 connections: netkeel, floor, floor, netkeel, half the time each; a short warm-up first.
    const nk8 = requester(o.port, 8);
    const fl8 = floor ? requester(o.port + 1, 8) : null;
    const rps = async (paths: string[]) => {
      const half = (o.seconds * 1000) / 2;
      for (const r of [nk8, fl8]) if (r) await throughput(r, paths, 8, 500);
      const nk: number[] = [];
      const fl: number[] = [];
      nk.push(await throughput(nk8, paths, 8, half));
      if (fl8) fl.push(await throughput(fl8, paths, 8, half), await throughput(fl8, paths, 8, half));
      nk.push(await throughput(nk8, paths, 8, half));
      const mean = (v: number[]) => (v.length ? round(v.reduce((x, y) => x + y, 0) / v.length) : NaN);
      return { nk: mean(nk), fl: mean(fl) };
    };
    const detail = await rps(detailPaths);
    process.stdout.write(`detail, 8 connections: netkeel ${detail.nk} req/s${floor ? `, floor ${detail.fl} req/s` : ''}\n`);
    const list = await rps(list50);
    process.stdout.write(`50-row list, 8 connections: netkeel ${list.nk} req/s${floor ? `, floor ${list.fl} req/s` : ''}\n`);

    // 1 connection: the two pages of 1,000 in turn, netkeel at depth 0 and 1, then the floor.
    const times = { d0: [] as number[], d1: [] as number[], floor: [] as number[] };
    const timedGet = async (r: Request, path: string, into: number[] | null) => {
      const res = await r('GET', path);
      if (res.status !== 200) throw new Error(`${path}: ${res.status}: ${res.body.slice(0, 500)}`);
      into?.push(res.ms);
    };
    for (let i = 0; i < o.rounds + 3; i++) {
      const page = pages[i % 2];
      const warm = i < 3;
      await timedGet(nk1, `${page}&depth=0`, warm ? null : times.d0);
      await timedGet(nk1, `${page}&depth=1`, warm ? null : times.d1);
      if (fl1) await timedGet(fl1, page, warm ? null : times.floor);
    }
    const median = (v: number[]) => (v.length ? round(percentile(v, 50)) : NaN);
    process.stdout.write(`1,000-row pages, 1 connection (median): netkeel ${median(times.d0)} ms (depth 1: ${median(times.d1)} ms)${floor ? `, floor ${median(times.floor)} ms` : ''}\n`);

    const result: Result = {
      kind,
      version,
      netkeel: { detailRps: detail.nk, list50Rps: list.nk, page1000Ms: median(times.d0), page1000Depth1Ms: median(times.d1), rssMb: peakRssMb(netkeel.pid!), seedRssMb, statements },
      floor: floor ? { detailRps: detail.fl, list50Rps: list.fl, page1000Ms: median(times.floor), rssMb: peakRssMb(floor.pid!) } : null,
    };
    table(result);
    return result;
  } finally {
    for (const s of servers) await stopProcess(s);
    if (env.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
  }
}

/**
 * Fails the run unless the floor gives the same bodies as netkeel (its own host and port aside)
 * for the same requests: both pages of 1,000, a page of 50 with both links, the last page, a
 * location with a parent and tags and one without, and an unknown id.
 */
async function checkSameBodies(nk: Request, fl: Request, nkPort: number, flPort: number, ids: string[]): Promise<void> {
  const paths = [
    '/api/dcim/locations/?limit=1000',
    '/api/dcim/locations/?limit=1000&offset=1000',
    '/api/dcim/locations/?limit=50&offset=50',
    '/api/dcim/locations/?limit=7&offset=1995',
    '/api/dcim/locations/',
    ...ids.slice(0, 3).map((id) => `/api/dcim/locations/${id}/`),
    `/api/dcim/locations/${ids[1999]}/`,
    '/api/dcim/locations/00000000-0000-4000-8000-000000000000/',
  ];
  let checked = 0;
  for (const path of paths) {
    const [a, b] = [await nk('GET', path), await fl('GET', path)];
    if (a.status !== b.status) throw new Error(`floor and netkeel differ on ${path}: status ${b.status} (netkeel ${a.status})`);
    const mine = b.body.replaceAll(`//127.0.0.1:${flPort}/`, `//127.0.0.1:${nkPort}/`);
    const diff = firstDifference(JSON.parse(a.body), JSON.parse(mine), '');
    if (diff) throw new Error(`floor and netkeel differ on ${path}: ${diff}`);
    if (a.status === 200) checked += JSON.parse(a.body).results?.length ?? 1;
  }
  if (!/site-0 → site-1/.test((await nk('GET', `/api/dcim/locations/?limit=2`)).body)) throw new Error('the seeded child location is not on the first page');
  process.stdout.write(`floor bodies checked against netkeel's: ${paths.length} requests, ${checked} objects, same keys in the same order and same values\n`);
}

/** Where two JSON values first differ (keys and their order, then values), or null. */
function firstDifference(a: unknown, b: unknown, at: string): string | null {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return `${at || '(body)'}: ${JSON.stringify(b)} (netkeel ${JSON.stringify(a)})`;
    if (a.length !== b.length) return `${at || '(body)'}: ${b.length} items (netkeel ${a.length})`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const [ka, kb] = [Object.keys(a), Object.keys(b)];
    if (ka.join() !== kb.join()) return `${at || '(body)'} keys: ${kb.join(', ')} (netkeel ${ka.join(', ')})`;
    for (const k of ka) {
      const d = firstDifference((a as Obj)[k], (b as Obj)[k], at ? `${at}.${k}` : k);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : `${at}: ${JSON.stringify(b)} (netkeel ${JSON.stringify(a)})`;
}

/** A ratio as the tables print it (`0.61x`), nothing for a missing figure. */
const times = (r: number) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : '');
const ratio = (x: number, y: number) => times(x / y);
const verdict = (met: boolean) => (met ? 'met' : '**not met**');

function table(r: Result): void {
  const n = r.netkeel;
  const f = r.floor;
  const rows: string[] = [];
  const row = (name: string, nk: number | string, fl: number | string, value: number, target: { text: string; met: (x: number) => boolean } | null) =>
    rows.push(`| ${name} | ${nk} | ${fl} | ${times(value)} | ${target?.text ?? ''} | ${target && Number.isFinite(value) ? verdict(target.met(value)) : ''} |`);
  row('detail GET, 8 connections (req/s)', n.detailRps, f?.detailRps ?? '', f ? n.detailRps / f.detailRps : NaN, f ? TARGETS.detail : null);
  row('50-row list, 8 connections (req/s)', n.list50Rps, f?.list50Rps ?? '', f ? n.list50Rps / f.list50Rps : NaN, f ? TARGETS.list50 : null);
  row('1,000-row page, 1 connection (median ms)', n.page1000Ms, f?.page1000Ms ?? '', f ? n.page1000Ms / f.page1000Ms : NaN, f ? TARGETS.page1000 : null);
  row('1,000-row page at depth 1 (median ms) / depth 0', n.page1000Depth1Ms, '', n.page1000Depth1Ms / n.page1000Ms, TARGETS.depth);
  if (f) row('peak RSS under this load (MB)', n.rssMb, f.rssMb, n.rssMb / f.rssMb, TARGETS.rss);
  else rows.push(`| peak RSS under this load (MB) | ${n.rssMb} | | | ${TARGETS.pgliteRss.text} | ${verdict(TARGETS.pgliteRss.met(n.rssMb))} |`);
  rows.push(`| statements per request: detail / 50 rows / 1,000 rows | ${n.statements.detail} / ${n.statements.list50} / ${n.statements.page1000} | ${f ? '1 / 2 / 2' : ''} | | | |`);
  rows.push(`| peak RSS while seeding (MB, netkeel's seeding process) | ${n.seedRssMb} | | | | |`);
  process.stdout.write(
    `\n## netkeel and the floor on ${r.kind} (${r.version})\n\n| scenario | netkeel | floor | netkeel / floor | target | |\n|---|---|---|---|---|---|\n${rows.join('\n')}\n\n`,
  );
}

/** The ratios of every database side by side, and MariaDB against PostgreSQL (netkeel's time per request). */
function summary(results: Result[]): void {
  if (results.length < 2) return;
  const by = (k: BenchDb) => results.find((r) => r.kind === k);
  const cols = results.map((r) => r.kind);
  const lines = [
    ['detail GET, 8 connections: netkeel / floor req/s', TARGETS.detail.text, (r: Result) => (r.floor ? ratio(r.netkeel.detailRps, r.floor.detailRps) : '')],
    ['50-row list, 8 connections: netkeel / floor req/s', TARGETS.list50.text, (r: Result) => (r.floor ? ratio(r.netkeel.list50Rps, r.floor.list50Rps) : '')],
    ['1,000-row page: netkeel / floor time', TARGETS.page1000.text, (r: Result) => (r.floor ? ratio(r.netkeel.page1000Ms, r.floor.page1000Ms) : '')],
    ['1,000-row page: depth 1 / depth 0 (netkeel)', TARGETS.depth.text, (r: Result) => ratio(r.netkeel.page1000Depth1Ms, r.netkeel.page1000Ms)],
    ['peak RSS: netkeel / floor (PGlite: netkeel MB)', `${TARGETS.rss.text} (${TARGETS.pgliteRss.text})`, (r: Result) => (r.floor ? ratio(r.netkeel.rssMb, r.floor.rssMb) : `${r.netkeel.rssMb} MB`)],
  ] as const;
  let out = `\n## Summary\n\n| scenario | target | ${cols.join(' | ')} |\n|---|---|${cols.map(() => '---|').join('')}\n`;
  for (const [name, target, cell] of lines) out += `| ${name} | ${target} | ${results.map((r) => cell(r)).join(' | ')} |\n`;
  const [pg, my] = [by('postgres'), by('mysql')];
  if (pg && my) {
    out += `\nnetkeel on MariaDB / on PostgreSQL, time per request (target ${TARGETS.mariadb.text}): `;
    out += `detail ${ratio(pg.netkeel.detailRps, my.netkeel.detailRps)}, 50-row list ${ratio(pg.netkeel.list50Rps, my.netkeel.list50Rps)}, `;
    out += `1,000-row page ${ratio(my.netkeel.page1000Ms, pg.netkeel.page1000Ms)}, at depth 1 ${ratio(my.netkeel.page1000Depth1Ms, pg.netkeel.page1000Depth1Ms)}\n`;
    // What the database itself makes of the same work: the floor's statements are the least that answer it.
    if (pg.floor && my.floor) {
      out += `the floor on MariaDB / on PostgreSQL, the same: detail ${ratio(pg.floor.detailRps, my.floor.detailRps)}, 50-row list ${ratio(pg.floor.list50Rps, my.floor.list50Rps)}, `;
      out += `1,000-row page ${ratio(my.floor.page1000Ms, pg.floor.page1000Ms)}\n`;
    }
  }
  process.stdout.write(`${out}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
