/**
 * DCIM benchmark (issue 18): 2,000 devices created through the bulk API, each getting 48
 * interfaces (and a console port) from its type's templates, and 1,000 locations to compare
 * with; then, on one connection: pages of 1,000 interfaces and of 1,000 locations at depth 0,
 * bulk creates of 1,000 interfaces and of 1,000 cables (paths traced and stored), a device
 * detail (plain and with `include=config_context`, 20 config contexts present), a page of 1,000
 * devices with and without it, and with `include=computed_fields` (three computed fields over
 * the device, its location, device type and manufacturer), with `include=relationships` (two
 * relationships, every device of the page associated) and with all three includes (issue 20:
 * within 3x the plain page), and an interface's trace, with statements per request.
 *
 * Usage: npm run bench:dcim -- --db=postgres   (pglite | postgres | mysql)
 */
import { args, benchDbs, benchDatabase, machineSpeedMs, measurer, peakRssMb, requester, startServer, vacuumer } from './support';

type Obj = Record<string, any>;

const TARGETS: Record<string, string> = {
  'bulk create 100 devices (4,800 interfaces from templates)': '',
  'page of 1,000 interfaces': '<= 1.5x a page of 1,000 locations',
  'bulk create 1,000 interfaces': '<= 1000 ms',
  'device detail': '',
  'device detail, include=config_context': '<= 10 ms median',
  'page of 1,000 devices, include=config_context': '',
  'page of 1,000 devices, include=computed_fields': '<= 3x a page of 1,000 devices',
  'page of 1,000 devices, include=relationships': '',
  'page of 1,000 devices, include=relationships,computed_fields,config_context': '<= 3x a page of 1,000 devices',
};

async function main(): Promise<void> {
  const a = args();
  const [kind] = benchDbs(a.db, 'postgres', true);
  const port = Number(a.port ?? 18557);
  const devicesWanted = Number(a.devices ?? 2000);
  const env = await benchDatabase(kind, 'netkeel_bench_dcim');
  const vacuum = kind === 'pglite' ? null : vacuumer(kind, env.DATABASE_URL, ['dcim_device', 'dcim_interface', 'dcim_location', 'dcim_cable', 'dcim_cablepath', 'dcim_cablepath_node']);
  const server = await startServer(env, port);
  const one = requester(port, 1);
  const { ok, measured, report, timed, table } = measurer(one, TARGETS);
  const post = async (path: string, body: unknown) => JSON.parse(ok(await one('POST', path, body), 201).body);

  try {
    // ---- load ----
    const siteType = await post('/api/dcim/location-types/', { name: 'Site', content_types: ['dcim.device'] });
    const locations: Obj[] = [];
    for (let i = 0; i < 1000; i += 500) {
      locations.push(...(await post('/api/dcim/locations/', Array.from({ length: 500 }, (_, n) => ({ name: `site-${i + n}`, location_type: siteType.id, status: 'Active', description: `site ${i + n}` })))));
    }
    const maker = await post('/api/dcim/manufacturers/', { name: 'Juniper' });
    const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'EX4300-48T' });
    const bare = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Bare' });
    await post('/api/dcim/interface-templates/', Array.from({ length: 48 }, (_, n) => ({ device_type: type.id, name: `ge-0/0/${n}`, type: '1000base-t' })));
    await post('/api/dcim/console-port-templates/', { device_type: type.id, name: 'Console', type: 'rj-45' });
    const role = await post('/api/extras/roles/', { name: 'Access switch', content_types: ['dcim.device'] });
    const deviceTimes: number[] = [];
    const deviceStatements: number[] = [];
    const t0 = Date.now();
    for (let i = 0; i < devicesWanted; i += 100) {
      const body = Array.from({ length: 100 }, (_, n) => ({ name: `sw-${i + n}`, device_type: type.id, role: role.id, status: 'Active', location: locations[(i + n) % locations.length].id }));
      const { r, statements } = await measured('POST', '/api/dcim/devices/', body, 201);
      deviceTimes.push(r.ms);
      deviceStatements.push(statements);
    }
    process.stdout.write(`loaded ${devicesWanted} devices (${devicesWanted * 48} interfaces) in ${Date.now() - t0} ms\n`);
    report('bulk create 100 devices (4,800 interfaces from templates)', deviceTimes, deviceStatements);

    // 1,000 interfaces per request on devices without templates.
    const bareDevices = await post('/api/dcim/devices/', Array.from({ length: 100 }, (_, n) => ({ name: `bare-${n}`, device_type: bare.id, role: role.id, status: 'Active', location: locations[n].id })));
    let batch = 0;
    const interfaceBodies = () => {
      const b = batch++;
      return Array.from({ length: 1000 }, (_, n) => ({ device: bareDevices[(b * 10 + Math.floor(n / 100)) % 100].id, name: `xe-${b}/${n % 100}`, type: '10gbase-x-sfpp', status: 'Active' }));
    };
    await timed('bulk create 1,000 interfaces', Array.from({ length: 10 }, () => '/api/dcim/interfaces/'), 'POST', interfaceBodies, 201);

    // 1,000 cables per request between the switches' interfaces (paths traced and stored).
    const list = async (path: string) => JSON.parse(ok(await one('GET', path), 200).body).results as Obj[];
    const cableBodies: unknown[][] = [];
    for (let k = 0; k < 5; k++) {
      const left = await list(`/api/dcim/interfaces/?device=sw-${2 * k}&device=sw-${2 * k + 20}&limit=1000`);
      const right = await list(`/api/dcim/interfaces/?device=sw-${2 * k + 1}&device=sw-${2 * k + 21}&limit=1000`);
      cableBodies.push(left.map((x, n) => ({ termination_a_type: 'dcim.interface', termination_a_id: x.id, termination_b_type: 'dcim.interface', termination_b_id: right[n].id, status: 'Connected' })));
    }
    let c = 0;
    await timed('bulk create 96 cables (paths traced)', Array.from({ length: 2 }, () => '/api/dcim/cables/'), 'POST', () => cableBodies[c++], 201);

    // 20 config contexts: global ones, by role, by device type, and by one site each.
    await post('/api/extras/config-contexts/', [
      { name: 'global', weight: 100, data: { ntp: { servers: ['10.0.0.1', '10.0.0.2'] }, dns: ['10.0.1.1'] } },
      { name: 'global-late', weight: 3000, data: { syslog: { host: '10.0.2.1', level: 'info' } } },
      { name: 'by-role', weight: 500, data: { snmp: { community: 'access' } }, roles: [role.id] },
      { name: 'by-type', weight: 600, data: { ntp: { prefer: '10.0.0.1' } }, device_types: [type.id] },
      ...Array.from({ length: 16 }, (_, n) => ({ name: `site-${n}`, weight: 1000 + n, data: { site: { name: `site-${n}`, vlan: n } }, locations: [locations[n].id] })),
    ]);

    // Three computed fields on devices: the object's own fields, related objects two hops away.
    await post('/api/extras/computed-fields/', [
      { content_type: 'dcim.device', label: 'Where', template: '{{ obj.name }} @ {{ obj.location.name | upcase }}' },
      { content_type: 'dcim.device', label: 'Model', template: '{{ obj.device_type.manufacturer.name }} {{ obj.device_type.model }}' },
      { content_type: 'dcim.device', label: 'Access', template: '{% if obj.status_id %}{{ obj.serial | default: "no serial" }}{% endif %}', fallback_value: '?' },
    ]);

    // Two relationships on devices: a backup site for each (one-to-many from locations) and a
    // symmetric peer (one-to-one), every device on the first page associated through both.
    const backup = await post('/api/extras/relationships/', { label: 'Backup site', key: 'backup_site', type: 'one-to-many', source_type: 'dcim.location', destination_type: 'dcim.device' });
    const peer = await post('/api/extras/relationships/', { label: 'Peer', key: 'peer', type: 'symmetric-one-to-one', source_type: 'dcim.device', destination_type: 'dcim.device' });
    const firstPage = await list('/api/dcim/devices/?limit=1000');
    for (let i = 0; i < firstPage.length; i += 500) {
      const chunk = firstPage.slice(i, i + 500);
      await post('/api/extras/relationship-associations/', chunk.map((d, n) => ({ relationship: backup.id, source_type: 'dcim.location', source_id: locations[(i + n + 500) % locations.length].id, destination_type: 'dcim.device', destination_id: d.id })));
      await post('/api/extras/relationship-associations/', chunk.filter((_, n) => n % 2 === 0).map((d, n) => ({ relationship: peer.id, source_type: 'dcim.device', source_id: d.id, destination_type: 'dcim.device', destination_id: chunk[2 * n + 1].id })));
    }

    if (vacuum) await vacuum();

    // ---- reads, one connection ----
    const offsets = Array.from({ length: 30 }, (_, i) => (i * 3331) % 90000);
    // The first pages of both (the comparison the issue asks for), then interfaces deep in the list (OFFSET scans).
    await timed('page of 1,000 interfaces', offsets.map(() => '/api/dcim/interfaces/?limit=1000'));
    await timed('page of 1,000 locations', offsets.map(() => '/api/dcim/locations/?limit=1000'));
    await timed('page of 1,000 interfaces at offsets up to 90,000', offsets.map((o) => `/api/dcim/interfaces/?limit=1000&offset=${o}`));
    const some = await list(`/api/dcim/devices/?limit=30&offset=${Math.min(500, Math.floor(devicesWanted / 2))}`);
    await timed('device detail', some.map((d) => `/api/dcim/devices/${d.id}/`));
    await timed('device detail, include=config_context', some.map((d) => `/api/dcim/devices/${d.id}/?include=config_context`));
    await timed('page of 1,000 devices', offsets.slice(0, 10).map(() => '/api/dcim/devices/?limit=1000'));
    await timed('page of 1,000 devices, include=config_context', offsets.slice(0, 10).map(() => '/api/dcim/devices/?limit=1000&include=config_context'));
    await timed('page of 1,000 devices, include=computed_fields', offsets.slice(0, 10).map(() => '/api/dcim/devices/?limit=1000&include=computed_fields'));
    await timed('page of 1,000 devices, include=relationships', offsets.slice(0, 10).map(() => '/api/dcim/devices/?limit=1000&include=relationships'));
    await timed('page of 1,000 devices, include=relationships,computed_fields,config_context', offsets.slice(0, 10).map(() => '/api/dcim/devices/?limit=1000&include=relationships,computed_fields,config_context'));
    const cabled = await list('/api/dcim/interfaces/?cabled=true&limit=30');
    await timed('interface trace', cabled.map((x) => `/api/dcim/interfaces/${x.id}/trace/`));

    table(`netkeel DCIM on ${kind}: ${devicesWanted} devices, ${devicesWanted * 48 + 10000} interfaces, 1,000 locations`);
    process.stdout.write(`server peak RSS: ${peakRssMb(server.pid!)} MB\n`);
    process.stdout.write(`machine speed: a fixed JavaScript workload took ${machineSpeedMs()} ms (lower is faster; compare runs by it)\n`);
  } finally {
    server.kill('SIGTERM');
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
