import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/** Parents follow every prefix create, change and delete, for child prefixes and addresses alike. */
eachDatabase('IPAM re-parenting', (t) => {
  const prefix = async (p: string, extra: Obj = {}) => (await t().post('/api/ipam/prefixes/', { prefix: p, status: 'Active', ...extra }).expect(201)).body as Obj;
  const address = async (a: string, extra: Obj = {}) =>
    (await t().post('/api/ipam/ip-addresses/', { address: a, status: 'Active', namespace: 'Global', ...extra }).expect(201)).body as Obj;
  /** The parent of each object, as its CIDR (or null). */
  const parents = async () => {
    const ps = (await t().get('/api/ipam/prefixes/?limit=1000').expect(200)).body.results as Obj[];
    const ips = (await t().get('/api/ipam/ip-addresses/?limit=1000').expect(200)).body.results as Obj[];
    const cidr = new Map(ps.map((p) => [p.id, `${p.prefix}${p.namespace.id === global ? '' : '@other'}`]));
    const out: Record<string, string | null> = {};
    for (const p of ps) out[cidr.get(p.id)!] = p.parent ? cidr.get(p.parent.id)! : null;
    for (const a of ips) out[a.address] = a.parent ? cidr.get(a.parent.id)! : null;
    return out;
  };
  let global = '';

  beforeAll(async () => {
    global = (await t().get('/api/ipam/namespaces/?name=Global').expect(200)).body.results[0].id;
  });

  it('hands addresses and subnets to a new prefix that is closer to them', async () => {
    await prefix('10.0.0.0/16');
    await address('10.0.1.5/24');
    await address('10.0.2.5/24');
    await prefix('10.0.1.0/24');
    await prefix('10.0.0.0/8');
    await prefix('10.0.1.128/25');
    await prefix('10.0.1.0/25');
    expect(await parents()).toEqual({
      '10.0.0.0/8': null,
      '10.0.0.0/16': '10.0.0.0/8',
      '10.0.1.0/24': '10.0.0.0/16',
      '10.0.1.0/25': '10.0.1.0/24',
      '10.0.1.128/25': '10.0.1.0/24',
      '10.0.1.5/24': '10.0.1.0/25',
      '10.0.2.5/24': '10.0.0.0/16',
    });
  });

  it('re-places a prefix whose network changes: its old children go up, the new space is claimed', async () => {
    const p = (await t().get('/api/ipam/prefixes/?prefix=10.0.1.0/24').expect(200)).body.results[0];
    const moved = (await t().patch(`/api/ipam/prefixes/${p.id}/`, { prefix: '10.0.2.0/24' }).expect(200)).body;
    expect(moved.parent.id).toBe((await t().get('/api/ipam/prefixes/?prefix=10.0.0.0/16').expect(200)).body.results[0].id);
    expect(await parents()).toMatchObject({
      '10.0.2.0/24': '10.0.0.0/16',
      '10.0.1.0/25': '10.0.0.0/16',
      '10.0.1.128/25': '10.0.0.0/16',
      '10.0.1.5/24': '10.0.1.0/25',
      '10.0.2.5/24': '10.0.2.0/24',
    });
  });

  it('hands the children of a deleted prefix to its parent, also when nested prefixes go together', async () => {
    const id = async (p: string) => (await t().get(`/api/ipam/prefixes/?prefix=${p}`).expect(200)).body.results[0].id;
    await t().del(`/api/ipam/prefixes/${await id('10.0.0.0/16')}/`).expect(204);
    expect(await parents()).toMatchObject({ '10.0.2.0/24': '10.0.0.0/8', '10.0.1.0/25': '10.0.0.0/8', '10.0.2.5/24': '10.0.2.0/24' });
    await prefix('10.0.1.0/24');
    await prefix('10.0.0.0/20');
    // Delete a chain of nested prefixes in one request: their subnets and addresses end at the /8.
    await t().del('/api/ipam/prefixes/', [{ id: await id('10.0.0.0/20') }, { id: await id('10.0.1.0/24') }, { id: await id('10.0.1.0/25') }]).expect(204);
    expect(await parents()).toEqual({
      '10.0.0.0/8': null,
      '10.0.1.128/25': '10.0.0.0/8',
      '10.0.2.0/24': '10.0.0.0/8',
      '10.0.1.5/24': '10.0.0.0/8',
      '10.0.2.5/24': '10.0.2.0/24',
    });
  });

  it('refuses to delete a root prefix that holds addresses (409) and changes nothing', async () => {
    const root = (await t().get('/api/ipam/prefixes/?prefix=10.0.0.0/8').expect(200)).body.results[0];
    const res = await t().del(`/api/ipam/prefixes/${root.id}/`).expect(409);
    expect(res.body).toEqual({ detail: 'Cannot delete Prefix 10.0.0.0/8 because it has child IPAddress objects that would no longer have a valid parent.' });
    await t().get(`/api/ipam/prefixes/${root.id}/`).expect(200);
    // A root prefix without addresses goes, and its children become roots.
    const lone = await prefix('11.99.0.0/16');
    const child = await prefix('11.99.1.0/24');
    expect(child.parent.id).toBe(lone.id);
    await t().del(`/api/ipam/prefixes/${lone.id}/`).expect(204);
    expect((await t().get(`/api/ipam/prefixes/${child.id}/`).expect(200)).body.parent).toBeNull();
  });

  it('refuses a change that would leave addresses without a parent, with the reference message', async () => {
    const root = await prefix('192.168.0.0/16');
    await address('192.168.5.5/24');
    await address('192.168.9.9/24');
    const res = await t().patch(`/api/ipam/prefixes/${root.id}/`, { prefix: '192.168.0.0/24' }).expect(400);
    expect(res.body).toEqual({ __all__: ['2 existing IP addresses (including 192.168.5.5) would no longer have a valid parent Prefix after this change.'] });
    expect((await t().get(`/api/ipam/prefixes/${root.id}/`).expect(200)).body.prefix).toBe('192.168.0.0/16');
    // Growing is fine: the addresses stay with it.
    await t().patch(`/api/ipam/prefixes/${root.id}/`, { prefix: '192.168.0.0/15' }).expect(200);
    expect(await parents()).toMatchObject({ '192.168.5.5/24': '192.168.0.0/15', '192.168.0.0/15': null });
  });

  it('places a batch of nested prefixes around existing addresses, innermost wins', async () => {
    await prefix('172.16.0.0/12');
    await address('172.16.1.1/24');
    await address('172.16.2.1/24');
    await t()
      .post('/api/ipam/prefixes/', ['172.16.0.0/16', '172.16.1.0/24', '172.16.0.0/22'].map((p) => ({ prefix: p, status: 'Active' })))
      .expect(201);
    expect(await parents()).toMatchObject({
      '172.16.0.0/16': '172.16.0.0/12',
      '172.16.0.0/22': '172.16.0.0/16',
      '172.16.1.0/24': '172.16.0.0/22',
      '172.16.1.1/24': '172.16.1.0/24',
      '172.16.2.1/24': '172.16.0.0/22',
    });
  });

  it('moves a prefix to another namespace alone: what it held stays, with its nearest ancestor', async () => {
    const other = (await t().post('/api/ipam/namespaces/', { name: 'Other' }).expect(201)).body;
    const p = (await t().get('/api/ipam/prefixes/?prefix=172.16.1.0/24').expect(200)).body.results[0];
    const both = await t().patch(`/api/ipam/prefixes/${p.id}/`, { namespace: other.id, prefix: '172.16.1.0/25' }).expect(400);
    expect(both.body).toEqual({ __all__: ['Cannot change network and namespace in the same update. Consider creating a new Prefix instead.'] });
    const moved = (await t().patch(`/api/ipam/prefixes/${p.id}/`, { namespace: other.id }).expect(200)).body;
    expect(moved.parent).toBeNull();
    expect(await parents()).toMatchObject({ '172.16.1.0/24@other': null, '172.16.1.1/24': '172.16.0.0/22' });
    // In its new namespace it takes what it contains.
    const ip = await address('172.16.1.77/24', { namespace: other.id });
    expect(ip.parent.id).toBe(p.id);
  });

  it('keeps parents right when a prefix and its child move in one request', async () => {
    const outer = await prefix('10.88.0.0/16');
    const inner = await prefix('10.88.1.0/24');
    await address('10.88.1.5/24');
    await t().patch('/api/ipam/prefixes/', [{ id: outer.id, prefix: '10.89.0.0/16' }, { id: inner.id, prefix: '10.89.1.0/24' }]).expect(200);
    expect(await parents()).toMatchObject({ '10.89.0.0/16': '10.0.0.0/8', '10.89.1.0/24': '10.89.0.0/16', '10.88.1.5/24': '10.0.0.0/8' });
  });

  it('keeps parents right when prefixes of one request are created, then bulk-resized', async () => {
    const [a, b] = (await t().post('/api/ipam/prefixes/', [{ prefix: '10.77.0.0/24', status: 'Active' }, { prefix: '10.77.1.0/24', status: 'Active' }]).expect(201)).body;
    await address('10.77.0.10/24');
    await t().patch('/api/ipam/prefixes/', [{ id: a.id, prefix: '10.77.0.0/23' }, { id: b.id, prefix: '10.77.0.0/25' }]).expect(200);
    expect(await parents()).toMatchObject({ '10.77.0.0/23': '10.0.0.0/8', '10.77.0.0/25': '10.77.0.0/23', '10.77.0.10/24': '10.77.0.0/25' });
  });
});
