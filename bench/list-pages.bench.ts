/**
 * List-page benchmark (issue 2): seeds 2,000 locations and 2,000 tenants through the bulk API,
 * then times list pages of 50 and 1,000 objects at depth 0 and 1 on one connection (median,
 * p99), 50-object pages at 8 connections (requests/s), statements per request (its authentication
 * included: none once the token is cached) and the server's peak RSS; the tables are analysed after the load, as autovacuum would.  Usage: npm run bench -- --db=postgres   (pglite | postgres | mysql)
 */
import { args, BenchDb, benchDatabase, machineSpeedMs, peakRssMb, percentile, requester, round, startServer, vacuumer } from './support';

async function main(): Promise<void> {
  const a = args();
  const kind = (a.db ?? 'pglite') as BenchDb;
  const port = Number(a.port ?? 18555);
  const env = await benchDatabase(kind, 'netkeel_bench_list');
  const server = await startServer(env, port);
  try {
    const one = requester(port, 1);
    const type = JSON.parse((await one('POST', '/api/dcim/location-types/', { name: 'Site', content_types: ['dcim.location'] })).body);
    const group = JSON.parse((await one('POST', '/api/tenancy/tenant-groups/', { name: 'Customers' })).body);
    for (let b = 0; b < 4; b++) {
      const tenants = Array.from({ length: 500 }, (_, i) => ({ name: `tenant-${b * 500 + i}`, tenant_group: group.id, description: 'benchmark tenant' }));
      const t0 = Date.now();
      const r = await one('POST', '/api/tenancy/tenants/', tenants);
      if (r.status !== 201) throw new Error(r.body);
      process.stdout.write(`seed tenants batch ${b}: ${Date.now() - t0} ms\n`);
    }
    const tenantIds = JSON.parse((await one('GET', '/api/tenancy/tenants/?limit=1000')).body).results.map((x: { id: string }) => x.id);
    for (let b = 0; b < 4; b++) {
      const locs = Array.from({ length: 500 }, (_, i) => ({ name: `site-${b * 500 + i}`, location_type: type.id, status: 'Active', tenant: tenantIds[i % tenantIds.length], facility: `F${i}` }));
      const t0 = Date.now();
      const r = await one('POST', '/api/dcim/locations/', locs);
      if (r.status !== 201) throw new Error(r.body);
      process.stdout.write(`seed locations batch ${b}: ${Date.now() - t0} ms\n`);
    }

    // Fresh bulk-loaded tables have no statistics yet; autovacuum would gather them shortly.
    if (kind !== 'pglite') await vacuumer(kind, env.DATABASE_URL, ['dcim_location', 'tenancy_tenant', 'extras_taggeditem'])();

    // The four pages are timed in turn, round after round: a page at depth 1 is compared with
    // the same page at depth 0 (target: at most twice its time) in the same phase of the machine,
    // whose speed drifts between minutes.
    const pages = [[50, 0], [1000, 0], [50, 1], [1000, 1]].map(([limit, depth]) => ({
      limit,
      depth,
      path: `/api/dcim/locations/?limit=${limit}&depth=${depth}`,
      times: [] as number[],
      statements: 0,
    }));
    for (const page of pages) for (let i = 0; i < 5; i++) await one('GET', page.path); // warm up
    for (let i = 0; i < 60; i++) {
      for (const page of pages) {
        const before = Number((await one('GET', '/api/status/')).headers['x-statement-count']);
        const r = await one('GET', page.path);
        if (r.status !== 200) throw new Error(r.body);
        page.times.push(r.ms);
        page.statements = Number(r.headers['x-statement-count']) - before;
      }
    }
    const rows = pages.map((p) => `| ${p.limit} | ${p.depth} | ${round(percentile(p.times, 50))} | ${round(percentile(p.times, 99))} | ${p.statements} |`);
    const eight = requester(port, 8);
    const path = '/api/dcim/locations/?limit=50';
    const durationMs = 10_000;
    let done = 0;
    const end = Date.now() + durationMs;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() < end) {
          const r = await eight('GET', path);
          if (r.status !== 200) throw new Error(r.body);
          done++;
        }
      }),
    );
    const rps = round(done / (durationMs / 1000));
    process.stdout.write(`\n## netkeel list pages on ${kind}\n\n| page size | depth | median ms (1 conn) | p99 ms | statements/request |\n|---|---|---|---|---|\n${rows.join('\n')}\n\n`);
    process.stdout.write(`50-object pages at 8 connections: ${rps} requests/s\nserver peak RSS: ${peakRssMb(server.pid!)} MB\n`);
    process.stdout.write(`machine speed: a fixed JavaScript workload took ${machineSpeedMs()} ms (lower is faster; compare runs by it)\n`);
  } finally {
    server.kill('SIGTERM');
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
