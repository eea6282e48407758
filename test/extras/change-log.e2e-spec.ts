import { randomUUID } from 'node:crypto';
import { eachDatabase } from '../../src/core/testing/harness';
import { cleanupChangeLog, onChanges, type ChangeEvent } from '../../src/modules/extras/change-log';
import { person, role } from '../identity/messages';

type Obj = Record<string, any>;
const CHANGES = '/api/extras/object-changes/';

/**
 * The change log (Nautobot's ObjectChange): one record per object for every create, update and
 * delete, whatever the path, in the write's transaction, under the request's id; read-only,
 * filtered, permission-scoped; old records cleaned up by retention.
 */
eachDatabase('change log', (t) => {
  /** Sends a request under a request id of its own; returns the response and that id. */
  const tagged = (req: any) => {
    const rid = randomUUID();
    return { rid, req: req.set('X-Request-ID', rid) };
  };
  const changesOf = async (rid: string): Promise<Obj[]> => (await t().get(`${CHANGES}?request_id=${rid}&limit=1000`).expect(200)).body.results;
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;

  it('records a create, an update and a delete of one object, each under its request id, with its data', async () => {
    const created = tagged(t().post('/api/tenancy/tenants/', { name: 'Acme', description: 'first' }));
    const res = await created.req.expect(201);
    expect(res.headers['x-request-id']).toBe(created.rid);
    const tenant = res.body;
    const [c] = await changesOf(created.rid);
    expect(c).toMatchObject({
      action: { value: 'create', label: 'Created' },
      changed_object_type: 'tenancy.tenant',
      changed_object_id: tenant.id,
      request_id: created.rid,
      user_name: 'admin',
      change_context: { value: 'web', label: 'Web' },
      change_context_detail: '',
      related_object_type: null,
      related_object_id: null,
      object_repr: 'Acme',
      display: 'tenancy.tenant Acme created by admin',
    });
    expect(c.user).toMatchObject({ object_type: 'users.user' });
    expect(c.changed_object).toMatchObject({ id: tenant.id, object_type: 'tenancy.tenant' });
    // object_data: the stored fields (a foreign key as its id, tags by name); object_data_v2: the representation at depth 0.
    expect(c.object_data).toMatchObject({ name: 'Acme', description: 'first', tenant_group: null, tags: [], custom_fields: {} });
    // Times as Django's JSON encoder writes them (milliseconds, Z), the representation's with microseconds.
    expect(c.object_data.created).toBe(new Date(tenant.created).toISOString());
    expect(c.object_data.id).toBeUndefined();
    expect(c.object_data_v2).toEqual(expect.objectContaining({ id: tenant.id, name: 'Acme', description: 'first', url: tenant.url, display: 'Acme', tags: [] }));

    const updated = tagged(t().patch(`/api/tenancy/tenants/${tenant.id}/`, { description: 'second' }));
    await updated.req.expect(200);
    const [u] = await changesOf(updated.rid);
    expect(u.action.value).toBe('update');
    expect(u.object_data.description).toBe('second');
    expect(u.object_data_v2.description).toBe('second');

    const deleted = tagged(t().del(`/api/tenancy/tenants/${tenant.id}/`));
    await deleted.req.expect(204);
    const [d] = await changesOf(deleted.rid);
    expect(d).toMatchObject({ action: { value: 'delete' }, changed_object_id: tenant.id, object_repr: 'Acme' });
    expect(d.object_data.description).toBe('second');
    // The object's records outlive it: its whole history, newest first.
    const history = (await t().get(`${CHANGES}?changed_object_type=tenancy.tenant&changed_object_id=${tenant.id}`).expect(200)).body;
    expect(history.results.map((r: Obj) => r.action.value)).toEqual(['delete', 'update', 'create']);
    // An empty PATCH is an update too (the reference records it).
    const again = await post('/api/tenancy/tenants/', { name: 'Acme again' });
    const noop = tagged(t().patch(`/api/tenancy/tenants/${again.id}/`, {}));
    await noop.req.expect(200);
    expect((await changesOf(noop.rid)).map((r) => r.action.value)).toEqual(['update']);
  });

  it('gives each request its own id when it names none, the same for all its records', async () => {
    const res = await t().post('/api/tenancy/tenants/', [{ name: 'Id one' }, { name: 'Id two' }]).expect(201);
    const rid = res.headers['x-request-id'];
    expect(rid).toMatch(/^[0-9a-f-]{36}$/);
    const records = await changesOf(rid);
    expect(records.map((r) => r.changed_object_id).sort()).toEqual(res.body.map((o: Obj) => o.id).sort());
    const other = await t().post('/api/tenancy/tenants/', { name: 'Id three' }).expect(201);
    expect(other.headers['x-request-id']).not.toBe(rid);
    // A request id that is no UUID is replaced.
    const bad = await t().post('/api/tenancy/tenants/', { name: 'Id four' }).set('X-Request-ID', 'not-a-uuid').expect(201);
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('records every object of a bulk create, update and delete, in one INSERT per batch', async () => {
    const names = Array.from({ length: 30 }, (_, i) => ({ name: `Bulk ${i}` }));
    const created = tagged(t().post('/api/tenancy/tenants/', names));
    const made = (await created.req.expect(201)).body as Obj[];
    expect((await changesOf(created.rid)).length).toBe(30);

    const updated = tagged(t().patch('/api/tenancy/tenants/', made.map((m) => ({ id: m.id, description: 'bulk' }))));
    await updated.req.expect(200);
    const ups = await changesOf(updated.rid);
    expect(ups.length).toBe(30);
    expect(ups.every((r) => r.action.value === 'update' && r.object_data.description === 'bulk')).toBe(true);

    // The change log costs the same number of statements for 3 objects as for 30.
    const few = made.slice(0, 3).map((m) => ({ id: m.id, description: 'again' }));
    const many = made.slice(3, 30).map((m) => ({ id: m.id, description: 'again' }));
    const a = await t().countStatements(() => t().patch('/api/tenancy/tenants/', few).expect(200));
    const b = await t().countStatements(() => t().patch('/api/tenancy/tenants/', many).expect(200));
    expect(b).toBe(a);

    const deleted = tagged(t().del('/api/tenancy/tenants/', made.map((m) => ({ id: m.id }))));
    await deleted.req.expect(204);
    const dels = await changesOf(deleted.rid);
    expect(dels.length).toBe(30);
    expect(new Set(dels.map((r) => r.changed_object_id)).size).toBe(30);
  });

  it('writes no record when the write fails', async () => {
    const failed = tagged(t().post('/api/tenancy/tenants/', [{ name: 'Fine' }, { name: '' }]));
    await failed.req.expect(400);
    expect(await changesOf(failed.rid)).toEqual([]);
    // A listener that throws rolls the write back with its records.
    const stop = onChanges(() => {
      throw new Error('listener refuses');
    });
    try {
      const refused = tagged(t().post('/api/tenancy/tenants/', { name: 'Refused' }));
      await refused.req.expect(500);
      expect(await changesOf(refused.rid)).toEqual([]);
      expect((await t().get('/api/tenancy/tenants/?name=Refused').expect(200)).body.count).toBe(0);
    } finally {
      stop();
    }
    // A protected delete (409) writes none either.
    const group = await post('/api/tenancy/tenant-groups/', { name: 'Protected group' });
    const type = await post('/api/dcim/location-types/', { name: 'Change log site' });
    await post('/api/dcim/locations/', { name: 'Change log loc', location_type: type.id, status: 'Active' });
    const refusedDelete = tagged(t().del(`/api/dcim/location-types/${type.id}/`));
    await refusedDelete.req.expect(409);
    expect(await changesOf(refusedDelete.rid)).toEqual([]);
    void group;
  });

  it('tells listeners each batch once, with the records', async () => {
    const events: ChangeEvent[] = [];
    const stop = onChanges((_x, e) => {
      events.push(e);
    });
    try {
      await t().post('/api/tenancy/tenants/', [{ name: 'Heard 1' }, { name: 'Heard 2' }]).expect(201);
    } finally {
      stop();
    }
    expect(events.length).toBe(1);
    expect(events[0]).toMatchObject({ action: 'create', objectType: 'tenancy.tenant' });
    expect(events[0].records.map((r) => r.object_repr)).toEqual(['Heard 1', 'Heard 2']);
    expect(events[0].objects.map((o) => o.id)).toEqual(events[0].records.map((r) => r.changed_object_id));
  });

  it('records CSV imports, tags, notes and IP allocation', async () => {
    const csv = tagged(t().http.post('/api/tenancy/tenants/').set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send('name,description\nCsv one,a\nCsv two,b\n'));
    await csv.req.expect(201);
    expect((await changesOf(csv.rid)).map((r) => r.object_repr).sort()).toEqual(['Csv one', 'Csv two']);

    const tag = await post('/api/extras/tags/', { name: 'audited', content_types: ['tenancy.tenant'] });
    const tenant = await post('/api/tenancy/tenants/', { name: 'Tagged' });
    const tagging = tagged(t().patch(`/api/tenancy/tenants/${tenant.id}/`, { tags: [tag.id] }));
    await tagging.req.expect(200);
    const [tg] = await changesOf(tagging.rid);
    expect(tg.object_data.tags).toEqual(['audited']);
    expect(tg.object_data_v2.tags).toEqual([expect.objectContaining({ id: tag.id })]);

    const note = tagged(t().post(`/api/tenancy/tenants/${tenant.id}/notes/`, { note: 'checked' }));
    const n = (await note.req.expect(201)).body;
    const [nc] = await changesOf(note.rid);
    expect(nc).toMatchObject({ action: { value: 'create' }, changed_object_type: 'extras.note', changed_object_id: n.id });

    const prefix = await post('/api/ipam/prefixes/', { prefix: '10.77.0.0/29', status: 'Active', type: 'network' });
    const ip = tagged(t().post(`/api/ipam/prefixes/${prefix.id}/available-ips/`, [{ status: 'Active' }, { status: 'Active' }]));
    const ips = (await ip.req.expect(201)).body as Obj[];
    const ipc = await changesOf(ip.rid);
    expect(ipc.map((r) => r.changed_object_id).sort()).toEqual(ips.map((i) => i.id).sort());
    expect(ipc.every((r) => r.changed_object_type === 'ipam.ipaddress' && r.action.value === 'create')).toBe(true);
    const child = tagged(t().post(`/api/ipam/prefixes/${prefix.id}/available-prefixes/`, { prefix_length: 30, status: 'Active' }));
    const cp = (await child.req.expect(201)).body;
    expect((await changesOf(child.rid)).map((r) => r.changed_object_id)).toEqual([cp.id]);
  });

  it('records the objects a delete cascades to, but not those a create derives (as the reference)', async () => {
    const maker = await post('/api/dcim/manufacturers/', { name: 'Change log maker' });
    const dt = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'CL-1' });
    const tpl = await post('/api/dcim/interface-templates/', { device_type: dt.id, name: 'eth0', type: '1000base-t' });
    const type = await post('/api/dcim/location-types/', { name: 'Cascade site', content_types: ['dcim.device'] });
    const loc = await post('/api/dcim/locations/', { name: 'Cascade loc', location_type: type.id, status: 'Active' });
    const devRole = await post('/api/extras/roles/', { name: 'Change log role', content_types: ['dcim.device'] });
    const made = tagged(t().post('/api/dcim/devices/', { name: 'cl1', device_type: dt.id, role: devRole.id, location: loc.id, status: 'Active' }));
    const device = (await made.req.expect(201)).body;
    // Its interface (from the template) comes with it: one record, the device's.
    expect((await changesOf(made.rid)).map((r) => r.changed_object_type)).toEqual(['dcim.device']);
    const iface = (await t().get(`/api/dcim/interfaces/?device_id=${device.id}`).expect(200)).body.results[0];
    const gone = tagged(t().del(`/api/dcim/devices/${device.id}/`));
    await gone.req.expect(204);
    const records = await changesOf(gone.rid);
    expect(records.map((r) => `${r.action.value} ${r.changed_object_type} ${r.changed_object_id}`).sort()).toEqual(
      [`delete dcim.device ${device.id}`, `delete dcim.interface ${iface.id}`].sort(),
    );
    // A component's records name its device as the related object (the reference's to_objectchange).
    const ifaceDelete = records.find((r) => r.changed_object_type === 'dcim.interface');
    expect(ifaceDelete).toMatchObject({ related_object_type: 'dcim.device', related_object_id: device.id });
    expect((await t().get(`${CHANGES}?changed_object_id=${tpl.id}`).expect(200)).body.results[0]).toMatchObject({ related_object_type: 'dcim.devicetype', related_object_id: dt.id });
    const dtGone = tagged(t().del(`/api/dcim/device-types/${dt.id}/`));
    await dtGone.req.expect(204);
    expect((await changesOf(dtGone.rid)).map((r) => r.changed_object_type).sort()).toEqual(['dcim.devicetype', 'dcim.interfacetemplate']);
  });

  it('records the identity intake', async () => {
    await post('/api/identity/sources/', { name: 'Change log source', slug: 'cls' });
    const first = tagged(t().put('/api/identity/sources/cls/identities/p1/', person({ given: 'Ada', roles: [role('r-1', 'staff')] })));
    const identity = (await first.req.expect(201)).body;
    const recs = await changesOf(first.rid);
    expect(recs.map((r) => `${r.action.value} ${r.changed_object_type}`).sort()).toEqual(['create identity.externalidentity', 'create identity.externalidentityrole']);
    expect(recs.find((r) => r.changed_object_type === 'identity.externalidentity')?.changed_object_id).toBe(identity.id);
    const second = tagged(t().put('/api/identity/sources/cls/identities/p1/', person({ given: 'Ada', family: 'Lovelace', roles: [role('r-1', 'staff')] })));
    await second.req.expect(200);
    expect((await changesOf(second.rid)).some((r) => r.action.value === 'update' && r.changed_object_id === identity.id)).toBe(true);
    const removed = tagged(t().del('/api/identity/sources/cls/identities/p1/'));
    await removed.req.expect(204);
    expect((await changesOf(removed.rid)).find((r) => r.changed_object_id === identity.id)?.action.value).toBe('update');
  });

  it('filters by action, type, object, user, user name, time and q; is read-only', async () => {
    const ten = await post('/api/tenancy/tenants/', { name: 'Filter me' });
    await t().patch(`/api/tenancy/tenants/${ten.id}/`, { description: 'x' }).expect(200);
    const q = async (query: string) => (await t().get(`${CHANGES}?${query}&limit=1000`).expect(200)).body.results as Obj[];
    const mine = `changed_object_id=${ten.id}`;
    expect((await q(`${mine}&action=update`)).map((r) => r.action.value)).toEqual(['update']);
    expect((await q(`${mine}&action=create`)).map((r) => r.action.value)).toEqual(['create']);
    expect((await q(`${mine}&changed_object_type=dcim.device`)).length).toBe(0);
    expect((await q(`${mine}&user=admin`)).length).toBe(2);
    expect((await q(`${mine}&user_name=admin`)).length).toBe(2);
    expect((await q(`${mine}&user_name=nobody`)).length).toBe(0);
    expect((await q('q=filter%20ME')).every((r) => r.object_repr === 'Filter me')).toBe(true);
    expect((await q('q=filter%20ME')).length).toBe(2);
    const [newest] = await q(mine);
    expect((await q(`${mine}&time__gte=${encodeURIComponent(newest.time)}`)).length).toBeGreaterThanOrEqual(1);
    expect((await q(`${mine}&time__lt=2000-01-01T00:00:00Z`)).length).toBe(0);
    // Read-only: no write method.
    await t().post(CHANGES, { action: 'create' }).expect(405);
    await t().del(`${CHANGES}${newest.id}/`).expect(405);
    const detail = (await t().get(`${CHANGES}${newest.id}/`).expect(200)).body;
    expect(detail.id).toBe(newest.id);
    // CSV export.
    const csv = await t().get(`${CHANGES}?${mine}`).set('Accept', 'text/csv').expect(200);
    expect(csv.text.split('\n')[0]).toContain('request_id');
  });

  it('is readable with extras.view_objectchange, within its constraints and the changed objects\' view', async () => {
    const seenOne = await post('/api/tenancy/tenants/', { name: 'Scoped seen' });
    const hidden = await post('/api/tenancy/tenants/', { name: 'Scoped hidden' });
    const none = await t().userWith('cl-none', [{ types: ['tenancy.tenant'], actions: ['view'] }]);
    await t().get(CHANGES, none).expect(403);
    const tenantsOnly = await t().userWith('cl-tenants', [
      { types: ['extras.objectchange'], actions: ['view'], constraints: { changed_object_type: 'tenancy.tenant' } },
      { types: ['tenancy.tenant', 'extras.tag'], actions: ['view'] },
    ]);
    const seen = (await t().get(`${CHANGES}?limit=1000`, tenantsOnly).expect(200)).body.results as Obj[];
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.changed_object_type === 'tenancy.tenant')).toBe(true);
    // Deleted tenants' records too: this user may view every tenant.
    expect(seen.some((r) => r.action.value === 'delete')).toBe(true);
    const tagRecord = (await t().get(`${CHANGES}?changed_object_type=extras.tag&limit=1`).expect(200)).body.results[0];
    await t().get(`${CHANGES}${tagRecord.id}/`, tenantsOnly).expect(404);
    // A reader who may view one tenant sees that tenant's records only: a record shows its object's data.
    const oneTenant = await t().userWith('cl-one-tenant', [
      { types: ['extras.objectchange'], actions: ['view'] },
      { types: ['tenancy.tenant'], actions: ['view'], constraints: { name: 'Scoped seen' } },
    ]);
    const few = (await t().get(`${CHANGES}?changed_object_type=tenancy.tenant&limit=1000`, oneTenant).expect(200)).body.results as Obj[];
    expect(few.map((r) => r.changed_object_id)).toEqual([seenOne.id]);
    const hiddenRecord = (await t().get(`${CHANGES}?changed_object_id=${hidden.id}`).expect(200)).body.results[0];
    await t().get(`${CHANGES}${hiddenRecord.id}/`, oneTenant).expect(404);
    const csv = await t().get(`${CHANGES}?limit=1000`, oneTenant).set('Accept', 'text/csv').expect(200);
    expect(csv.text).not.toContain('Scoped hidden');

    // A record names its object and nothing more: a tree object's record does not carry the
    // names of its ancestors (which its reader may not view), as the live display would.
    const parent = await post('/api/tenancy/tenant-groups/', { name: 'Secret parent group' });
    const child = await post('/api/tenancy/tenant-groups/', { name: 'Open child group', parent: parent.id });
    const [record] = (await t().get(`${CHANGES}?changed_object_id=${child.id}`).expect(200)).body.results;
    expect(record.object_repr).toBe('Open child group');
    expect(record.object_data_v2.display).toBe('Open child group');
    expect(JSON.stringify(record)).not.toContain('Secret parent group');

    // A display made only of other objects' names (a link model's "<vlan>: <location>") names
    // neither: the record's text is then the object's id.
    const type = await post('/api/dcim/location-types/', { name: 'Repr type', content_types: ['ipam.vlan'] });
    const where = await post('/api/dcim/locations/', { name: 'Repr site', location_type: type.id, status: 'Active' });
    const vlan = await post('/api/ipam/vlans/', { vid: 77, name: 'Repr vlan', status: 'Active' });
    const link = await post('/api/ipam/vlan-location-assignments/', { vlan: vlan.id, location: where.id });
    const [linked] = (await t().get(`${CHANGES}?changed_object_id=${link.id}`).expect(200)).body.results;
    expect({ repr: linked.object_repr, display: link.display }).toEqual({ repr: link.id, display: 'Repr vlan (77): Repr site' });
  });

  it('cleans up records older than the retention, in batches; 0 keeps them all', async () => {
    await post('/api/tenancy/tenants/', { name: 'Old one' });
    await post('/api/tenancy/tenants/', { name: 'Old two' });
    await new Promise((r) => setTimeout(r, 20));
    const keep = await post('/api/tenancy/tenants/', { name: 'Kept' });
    const [kept] = (await t().get(`${CHANGES}?changed_object_id=${keep.id}`).expect(200)).body.results;
    const total = async () => (await t().get(`${CHANGES}?limit=1`).expect(200)).body.count as number;
    const before = await total();
    const now = new Date(Date.parse(kept.time) + 24 * 3600 * 1000);
    expect(await cleanupChangeLog(t().db, 0, now)).toBe(0);
    expect(await total()).toBe(before);
    const deleted = await cleanupChangeLog(t().db, 1, now, 7);
    expect(deleted).toBe(before - 1);
    expect(await total()).toBe(1);
    await t().get(`${CHANGES}${kept.id}/`).expect(200);
  });
});
