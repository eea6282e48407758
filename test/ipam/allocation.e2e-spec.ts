import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/** available-ips / available-prefixes: listing, allocation, exhaustion, concurrency and bounded cost. */
eachDatabase('IPAM allocation', (t) => {
  const prefix = async (p: string, extra: Obj = {}) => (await t().post('/api/ipam/prefixes/', { prefix: p, status: 'Active', ...extra }).expect(201)).body as Obj;
  const ips = (p: Obj, query = '') => `/api/ipam/prefixes/${p.id}/available-ips/${query}`;
  const nets = (p: Obj) => `/api/ipam/prefixes/${p.id}/available-prefixes/`;
  const free = async (p: Obj, query = '') => ((await t().get(ips(p, query)).expect(200)).body as Obj[]).map((a) => a.address);

  it('lists free addresses: IPv4 networks keep their first and last, pools and /31-/32 do not', async () => {
    const net = await prefix('10.50.0.0/29');
    expect((await t().get(ips(net)).expect(200)).body[0]).toEqual({ ip_version: 4, address: '10.50.0.1/29' });
    expect(await free(net)).toEqual(['10.50.0.1/29', '10.50.0.2/29', '10.50.0.3/29', '10.50.0.4/29', '10.50.0.5/29', '10.50.0.6/29']);
    await t().post('/api/ipam/ip-addresses/', ['10.50.0.1/29', '10.50.0.3/29'].map((address) => ({ address, status: 'Active', namespace: 'Global' }))).expect(201);
    expect(await free(net)).toEqual(['10.50.0.2/29', '10.50.0.4/29', '10.50.0.5/29', '10.50.0.6/29']);
    expect(await free(net, '?limit=2')).toEqual(['10.50.0.2/29', '10.50.0.4/29']);
    expect(await free(net, '?range_start=10.50.0.5')).toEqual(['10.50.0.5/29', '10.50.0.6/29']);
    expect(await free(net, '?range_end=10.50.0.4')).toEqual(['10.50.0.2/29', '10.50.0.4/29']);
    expect(await free(await prefix('10.50.1.0/29', { type: 'pool' }))).toHaveLength(8);
    expect(await free(await prefix('10.50.2.0/31'))).toEqual(['10.50.2.0/31', '10.50.2.1/31']);
    expect(await free(await prefix('10.50.2.7/32'))).toEqual(['10.50.2.7/32']);
    expect(await free(await prefix('2001:db8:50::/127'))).toEqual(['2001:db8:50::/127', '2001:db8:50::1/127']);
    expect(await free(await prefix('2001:db8:51::/64'), '?limit=3')).toEqual(['2001:db8:51::/64', '2001:db8:51::1/64', '2001:db8:51::2/64']);
  });

  it('answers bad parameters with 400 and clamps the limit', async () => {
    const p = await prefix('10.51.0.0/16');
    expect((await t().get(ips(p, '?limit=-1')).expect(400)).body).toHaveProperty('limit');
    expect((await t().get(ips(p, '?range_start=10.52.0.1')).expect(400)).body).toHaveProperty('range_start');
    expect((await t().get(ips(p, '?range_end=2001:db8::1')).expect(400)).body).toHaveProperty('range_end');
    expect(await free(p, '?limit=0')).toHaveLength(1000);
    expect(await free(p, '?limit=5000')).toHaveLength(1000);
    await t().get(`/api/ipam/prefixes/00000000-0000-4000-8000-000000000000/available-ips/`).expect(404);
  });

  it('allocates one address or a list, and answers 204 when the prefix is full', async () => {
    const p = await prefix('10.52.0.0/30');
    const one = await t().post(ips(p), { status: 'Active', dns_name: 'a.example.com' }).expect(201);
    expect(one.body).toMatchObject({ address: '10.52.0.1/30', dns_name: 'a.example.com', parent: { id: p.id } });
    const over = await t().post(ips(p), [{ status: 'Active' }, { status: 'Active' }]).expect(204);
    expect(over.text).toBe('');
    const last = await t().post(ips(p), [{ status: 'Active', description: 'last' }]).expect(201);
    expect(last.body.map((a: Obj) => a.address)).toEqual(['10.52.0.2/30']);
    await t().post(ips(p), { status: 'Active' }).expect(204);
    expect(await free(p)).toEqual([]);
    // Invalid input is a 400 and allocates nothing.
    const q = await prefix('10.52.1.0/30');
    expect((await t().post(ips(q), { status: 'No such status' }).expect(400)).body).toHaveProperty('status');
    expect((await t().post(ips(q), ['x']).expect(400)).body).toEqual([{ non_field_errors: ['Invalid data. Expected a dictionary.'] }]);
    expect(await free(q)).toEqual(['10.52.1.1/30', '10.52.1.2/30']);
  });

  it('never hands out an address twice to parallel requests', async () => {
    const p = await prefix('10.53.0.0/27');
    const results = await Promise.all(Array.from({ length: 40 }, () => t().post(ips(p), { status: 'Active' })));
    const created = results.filter((r) => r.status === 201).map((r) => r.body.address);
    expect(results.every((r) => r.status === 201 || r.status === 204)).toBe(true);
    expect(created).toHaveLength(30);
    expect(new Set(created).size).toBe(30);
    const stored = (await t().get('/api/ipam/ip-addresses/?parent=10.53.0.0/27&limit=100').expect(200)).body;
    expect(stored.count).toBe(30);
  });

  it('allocates from overlapping prefixes in parallel: every request succeeds, no address twice', async () => {
    const outer = await prefix('10.57.0.0/16');
    const inner = await prefix('10.57.0.0/24');
    // Both prefixes' first free address is 10.57.0.1: the losers of each race run again.
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => t().post(ips(i % 2 ? inner : outer), { status: 'Active' })));
    expect(results.map((r) => r.status)).toEqual(Array(16).fill(201));
    const created = results.map((r) => r.body.address);
    expect(new Set(created).size).toBe(16);
    expect(created.every((a: string) => a.startsWith('10.57.0.'))).toBe(true);
  });

  it('lets a prefix move while addresses are allocated from it: every request succeeds', async () => {
    const p = await prefix('10.61.0.0/24');
    const alloc = () => t().post(ips(p), { status: 'Active' });
    const results = await Promise.all([
      ...Array.from({ length: 6 }, alloc),
      t().patch(`/api/ipam/prefixes/${p.id}/`, { prefix: '10.61.0.0/23' }),
      ...Array.from({ length: 6 }, alloc),
      t().del('/api/ipam/prefixes/', [{ id: (await prefix('10.61.1.0/24')).id }]),
      ...Array.from({ length: 6 }, alloc),
    ]);
    expect(results.map((r) => r.status)).toEqual([...Array(6).fill(201), 200, ...Array(6).fill(201), 204, ...Array(6).fill(201)]);
    expect(new Set(results.filter((r) => r.status === 201).map((r) => r.body.address)).size).toBe(18);
  });

  it('never hands out a prefix twice to parallel requests', async () => {
    const p = await prefix('10.54.0.0/24');
    const results = await Promise.all(Array.from({ length: 12 }, () => t().post(nets(p), { prefix_length: 28, status: 'Active' })));
    const created = results.filter((r) => r.status === 201).map((r) => r.body.prefix);
    expect(created).toHaveLength(12);
    expect(new Set(created).size).toBe(12);
  });

  it('lists and allocates free child prefixes', async () => {
    const p = await prefix('10.60.0.0/16');
    await prefix('10.60.0.0/24');
    await prefix('10.60.2.0/23');
    await prefix('10.60.2.0/24');
    const list = (await t().get(nets(p)).expect(200)).body;
    expect(list[0]).toEqual({ ip_version: 4, prefix: '10.60.1.0/24' });
    expect(list.map((x: Obj) => x.prefix)).toEqual(['10.60.1.0/24', '10.60.4.0/22', '10.60.8.0/21', '10.60.16.0/20', '10.60.32.0/19', '10.60.64.0/18', '10.60.128.0/17']);
    const one = (await t().post(nets(p), { prefix_length: 24, status: 'Active', description: 'first' }).expect(201)).body;
    expect(one).toMatchObject({ prefix: '10.60.1.0/24', description: 'first', parent: { id: p.id } });
    const two = (await t().post(nets(p), [{ prefix_length: 24, status: 'Active' }, { prefix_length: 22, status: 'Active' }]).expect(201)).body;
    expect(two.map((x: Obj) => x.prefix)).toEqual(['10.60.4.0/24', '10.60.8.0/22']);
    await t().post(nets(p), { prefix_length: 8, status: 'Active' }).expect(204);
    expect((await t().post(nets(p), { prefix_length: 'x', status: 'Active' }).expect(400)).body).toEqual({ prefix_length: ['This field must be an integer.'] });
    expect((await t().post(nets(p), { prefix_length: 33, status: 'Active' }).expect(400)).body).toEqual({ prefix_length: ['Invalid prefix length (33) for IPv4'] });
    const v6 = await prefix('2001:db8:60::/48');
    expect((await t().get(nets(v6)).expect(200)).body).toEqual([{ ip_version: 6, prefix: '2001:db8:60::/48' }]);
    expect((await t().post(nets(v6), { prefix_length: 64, status: 'Active' }).expect(201)).body.prefix).toBe('2001:db8:60::/64');
  });

  it('needs view on the prefix to list and add on addresses (or prefixes) to allocate, within constraints', async () => {
    const p = await prefix('10.55.0.0/29');
    const q = await prefix('10.56.0.0/29');
    const user = (await t().post('/api/users/users/', { username: 'netops', password: 'netops-password-1' }).expect(201)).body;
    await t().post('/api/users/permissions/', { name: 'view 10.55', object_types: ['ipam.prefix'], actions: ['view'], constraints: { prefix: '10.55.0.0/29' }, users: [user.id] }).expect(201);
    await t().post('/api/users/permissions/', { name: 'own tokens', object_types: ['users.token'], actions: ['add', 'view'], users: [user.id] }).expect(201);
    await t().post('/api/users/permissions/', { name: 'lookups', object_types: ['extras.status', 'ipam.namespace'], actions: ['view'], users: [user.id] }).expect(201);
    const key = (await t().http.post('/api/users/tokens/').set('Authorization', `Basic ${Buffer.from('netops:netops-password-1').toString('base64')}`).expect(201)).body.key;
    expect((await t().get(ips(p), key).expect(200)).body).toHaveLength(6);
    await t().get(ips(q), key).expect(404);
    await t().post(ips(p), { status: 'Active' }, key).expect(403);
    await t().post(nets(p), { prefix_length: 30, status: 'Active' }, key).expect(403);
    await t().post('/api/users/permissions/', { name: 'add in 10.55', object_types: ['ipam.ipaddress'], actions: ['add'], constraints: { host__net_host_contained: '10.55.0.0/29' }, users: [user.id] }).expect(201);
    expect((await t().post(ips(p), { status: 'Active' }, key).expect(201)).body.address).toBe('10.55.0.1/29');
    await t().post(ips(q), { status: 'Active' }, key).expect(404);
  });

  it('keeps the cost of listing bounded on an empty /8 and a nearly full block', async () => {
    const big = await prefix('11.0.0.0/8');
    let out: string[] = [];
    const n8 = await t().countStatements(async () => {
      out = await free(big);
    });
    expect(out).toHaveLength(50);
    expect(out[0]).toBe('11.0.0.1/8');
    expect(n8).toBeLessThanOrEqual(8);
    // A /22 with every address used except four scattered ones.
    const block = await prefix('10.70.0.0/22');
    const hole = new Set([300, 301, 777, 1020]);
    const all = Array.from({ length: 1022 }, (_, i) => i + 1).filter((i) => !hole.has(i));
    for (let i = 0; i < all.length; i += 500) {
      const part = all.slice(i, i + 500).map((n) => ({ address: `10.70.${n >> 8}.${n & 255}/22`, status: 'Active', namespace: 'Global' }));
      await t().post('/api/ipam/ip-addresses/', part).expect(201);
    }
    const n22 = await t().countStatements(async () => {
      out = await free(block);
    });
    expect(out).toEqual(['10.70.1.44/22', '10.70.1.45/22', '10.70.3.9/22', '10.70.3.252/22']);
    expect(n22).toBeLessThanOrEqual(12);
  });

  it('finds the free addresses of a block with many in use and room left (a block counted again, narrowed)', async () => {
    // A /19: its first block of 512 holds 299 addresses (.0.1 to .1.44 but .0.150), more than
    // are read at once, and room after them.
    const p = await prefix('10.71.0.0/19');
    const used = Array.from({ length: 300 }, (_, i) => i + 1).filter((n) => n !== 150);
    await t().post('/api/ipam/ip-addresses/', used.map((n) => ({ address: `10.71.${n >> 8}.${n & 255}/19`, status: 'Active', namespace: 'Global' }))).expect(201);
    expect(await free(p, '?limit=3')).toEqual(['10.71.0.150/19', '10.71.1.45/19', '10.71.1.46/19']);
    expect(await free(p, '?limit=2&range_start=10.71.0.151')).toEqual(['10.71.1.45/19', '10.71.1.46/19']);
  });
});
