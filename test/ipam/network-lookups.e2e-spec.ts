import { eachDatabase, TestApp } from '../../src/core/testing/harness';

/**
 * Network lookups on every database, with the edges of both families: /0, /1, /31, /32, /127,
 * /128, addresses with high bytes (128.x, 255.x, 8000::, ff00::) and IPv4-mapped IPv6, which
 * is stored with the same bytes as its IPv4 address and must never be confused with it.
 */
const PREFIXES = [
  // Given in an order where children come before their parents, in one bulk request.
  '10.1.2.4/32',
  '10.1.2.0/31',
  '10.1.2.0/24',
  '10.1.0.0/16',
  '10.0.0.0/8',
  '0.0.0.0/0',
  '128.0.0.0/1',
  '255.255.255.0/24',
  '192.168.0.0/16',
  '2001:db8::/127',
  '2001:db8::/32',
  '::/0',
  '8000::/1',
  'ff00::/8',
  '::ffff:10.1.0.0/112',
  '::ffff:10.0.0.0/104',
];

const ADDRESSES = [
  '10.1.2.1/24',
  '10.1.2.4/32',
  '10.1.2.200/24',
  '10.200.0.1/8',
  '255.255.255.254/24',
  '192.168.1.1/24',
  '128.0.0.1/1',
  '2001:db8::1/64',
  '2001:db8::ffff/64',
  'ff00::1/8',
  '::ffff:10.0.0.1/104',
];

const V4 = PREFIXES.filter((p) => !p.includes(':'));
const V6 = PREFIXES.filter((p) => p.includes(':'));

eachDatabase('IPAM network lookups', (t) => {
  const prefixes = async (query: string) => {
    const res = await t().get(`/api/ipam/prefixes/?limit=1000&${query}`).expect(200);
    return (res.body.results as { prefix: string }[]).map((p) => p.prefix).sort();
  };
  const addresses = async (query: string) => {
    const res = await t().get(`/api/ipam/ip-addresses/?limit=1000&${query}`).expect(200);
    return (res.body.results as { address: string }[]).map((p) => p.address).sort();
  };
  const sorted = (list: string[]) => [...list].sort();
  const byPrefix = new Map<string, Record<string, any>>();
  const byAddress = new Map<string, Record<string, any>>();

  beforeAll(async () => {
    const created = await t().post('/api/ipam/prefixes/', PREFIXES.map((prefix) => ({ prefix, status: 'Active' }))).expect(201);
    created.body.forEach((p: Record<string, any>) => byPrefix.set(p.prefix, p));
    const ips = await t().post('/api/ipam/ip-addresses/', ADDRESSES.map((address) => ({ address, status: 'Active', namespace: 'Global' }))).expect(201);
    ips.body.forEach((a: Record<string, any>) => byAddress.set(a.address, a));
  });

  it('reads networks back as written, with their parts and family', async () => {
    const p = (await t().get(`/api/ipam/prefixes/${byPrefix.get('10.1.2.0/31')!.id}/`).expect(200)).body;
    expect(p).toMatchObject({ prefix: '10.1.2.0/31', network: '10.1.2.0', broadcast: '10.1.2.1', prefix_length: 31, ip_version: 4, family: { value: 4, label: 'IPv4' } });
    const h = (await t().get(`/api/ipam/prefixes/${byPrefix.get('10.1.2.4/32')!.id}/`).expect(200)).body;
    expect(h).toMatchObject({ network: '10.1.2.4', broadcast: '10.1.2.4' });
    const z = (await t().get(`/api/ipam/prefixes/${byPrefix.get('::/0')!.id}/`).expect(200)).body;
    expect(z).toMatchObject({ network: '::', broadcast: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', prefix_length: 0, family: { value: 6, label: 'IPv6' } });
    const m = (await t().get(`/api/ipam/prefixes/${byPrefix.get('::ffff:10.0.0.0/104')!.id}/`).expect(200)).body;
    expect(m).toMatchObject({ broadcast: '::ffff:10.255.255.255', ip_version: 6 });
    const a = (await t().get(`/api/ipam/ip-addresses/${byAddress.get('2001:db8::ffff/64')!.id}/`).expect(200)).body;
    expect(a).toMatchObject({ host: '2001:db8::ffff', mask_length: 64, ip_version: 6, family: { value: 6, label: 'IPv6' } });
  });

  it('gives every prefix and address its closest parent, never across families', async () => {
    const parentOf = (m: Map<string, Record<string, any>>, key: string) => {
      const id = m.get(key)!.parent?.id;
      return id ? [...byPrefix.values()].find((p) => p.id === id)!.prefix : null;
    };
    const fresh = async () => {
      for (const p of (await t().get('/api/ipam/prefixes/?limit=1000').expect(200)).body.results) byPrefix.set(p.prefix, p);
    };
    await fresh();
    expect(Object.fromEntries(PREFIXES.map((p) => [p, parentOf(byPrefix, p)]))).toEqual({
      '10.1.2.4/32': '10.1.2.0/24',
      '10.1.2.0/31': '10.1.2.0/24',
      '10.1.2.0/24': '10.1.0.0/16',
      '10.1.0.0/16': '10.0.0.0/8',
      '10.0.0.0/8': '0.0.0.0/0',
      '0.0.0.0/0': null,
      '128.0.0.0/1': '0.0.0.0/0',
      '255.255.255.0/24': '128.0.0.0/1',
      '192.168.0.0/16': '128.0.0.0/1',
      '2001:db8::/127': '2001:db8::/32',
      '2001:db8::/32': '::/0',
      '::/0': null,
      '8000::/1': '::/0',
      'ff00::/8': '8000::/1',
      '::ffff:10.1.0.0/112': '::ffff:10.0.0.0/104',
      '::ffff:10.0.0.0/104': '::/0',
    });
    expect(Object.fromEntries(ADDRESSES.map((a) => [a, parentOf(byAddress, a)]))).toEqual({
      '10.1.2.1/24': '10.1.2.0/31',
      '10.1.2.4/32': '10.1.2.4/32',
      '10.1.2.200/24': '10.1.2.0/24',
      '10.200.0.1/8': '10.0.0.0/8',
      '255.255.255.254/24': '255.255.255.0/24',
      '192.168.1.1/24': '192.168.0.0/16',
      '128.0.0.1/1': '128.0.0.0/1',
      '2001:db8::1/64': '2001:db8::/127',
      '2001:db8::ffff/64': '2001:db8::/32',
      'ff00::1/8': 'ff00::/8',
      '::ffff:10.0.0.1/104': '::ffff:10.0.0.0/104',
    });
  });

  it.each([
    ['network__net_contained=10.0.0.0/8', ['10.1.0.0/16', '10.1.2.0/24', '10.1.2.0/31', '10.1.2.4/32']],
    ['network__net_contained_or_equal=10.0.0.0/8', ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.1.2.0/31', '10.1.2.4/32']],
    ['network__net_contains=10.1.2.0/24', ['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16']],
    ['network__net_contains_or_equals=10.1.2.0/24', ['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24']],
    ['network__net_contains_or_equals=10.1.2.4/32', ['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.1.2.4/32']],
    ['network__net_equals=10.1.2.0/31', ['10.1.2.0/31']],
    ['network__net_equals=10.1.2.0/30', []],
    ['network__net_host=10.1.2.1', ['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.1.2.0/31']],
    ['network__net_host=255.255.255.255', ['0.0.0.0/0', '128.0.0.0/1', '255.255.255.0/24']],
    ['network__net_host_contained=10.1.2.0/24', ['10.1.2.0/24', '10.1.2.0/31', '10.1.2.4/32']],
    ['network__net_in=10.1.2.0', ['10.1.2.0/24', '10.1.2.0/31']],
    ['network__net_in=10.1.2.0&network__net_in=10.0.0.0', ['10.0.0.0/8', '10.1.2.0/24', '10.1.2.0/31']],
    ['network__net_contained=0.0.0.0/0', V4.filter((p) => p !== '0.0.0.0/0')],
    ['network__net_contains_or_equals=0.0.0.0/0', ['0.0.0.0/0']],
    ['network__net_contained=128.0.0.0/1', ['192.168.0.0/16', '255.255.255.0/24']],
    ['network__net_contained=8000::/1', ['ff00::/8']],
    ['network__net_contains=2001:db8::1/128', ['2001:db8::/127', '2001:db8::/32', '::/0']],
    ['network__net_contains_or_equals=2001:db8::/127', ['2001:db8::/127', '2001:db8::/32', '::/0']],
    ['network__net_contained=::/0', V6.filter((p) => p !== '::/0')],
    ['network__net_contained=::ffff:10.0.0.0/104', ['::ffff:10.1.0.0/112']],
    ['network__net_contains=::ffff:10.1.0.0/112', ['::/0', '::ffff:10.0.0.0/104']],
    ['network__family=6', V6],
    ['network__family=4', V4],
    ['network=10.1.2.0', ['10.1.2.0/24', '10.1.2.0/31']],
    ['network__exact=10.0.0.0', ['10.0.0.0/8']],
    ['network__iexact=2001:DB8::', ['2001:db8::/127', '2001:db8::/32']],
    ['network__startswith=10.1.', ['10.1.0.0/16', '10.1.2.0/24', '10.1.2.0/31', '10.1.2.4/32']],
    ['network__istartswith=FF00', ['ff00::/8']],
    ['network__endswith=.4', ['10.1.2.4/32']],
    ['network__iendswith=FFFF:10.0.0.0', ['::ffff:10.0.0.0/104']],
    ['network__regex=^(128|255)%5C.', ['128.0.0.0/1', '255.255.255.0/24']],
    ['network__iregex=^2001:DB8', ['2001:db8::/127', '2001:db8::/32']],
    ['prefix=10.1.2.0/24', ['10.1.2.0/24']],
    ['prefix=10.1.2.9/24', ['10.1.2.0/24']],
    ['within=10.1.0.0/16', ['10.1.2.0/24', '10.1.2.0/31', '10.1.2.4/32']],
    ['within_include=10.1.0.0/16', ['10.1.0.0/16', '10.1.2.0/24', '10.1.2.0/31', '10.1.2.4/32']],
    ['contains=10.1.2.4', ['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.1.2.4/32']],
    ['contains=10.1.0.0/16', ['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16']],
    ['contains=ff00::1', ['8000::/1', '::/0', 'ff00::/8']],
    ['mask_length=24', ['10.1.2.0/24', '255.255.255.0/24']],
    ['mask_length__gte=127', ['2001:db8::/127']],
    ['prefix_length__lt=2', ['0.0.0.0/0', '128.0.0.0/1', '8000::/1', '::/0']],
    ['ip_version=6&within=2001:db8::/32', ['2001:db8::/127']],
    ['q=10.1', ['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.1.2.0/31', '10.1.2.4/32']],
    ['q=2001:db8', ['2001:db8::/127', '2001:db8::/32', '::/0']],
  ])('prefixes ?%s', async (query, expected) => {
    expect(await prefixes(query)).toEqual(sorted(expected));
  });

  it.each([
    ['host__net_host_contained=10.1.2.0/24', ['10.1.2.1/24', '10.1.2.200/24', '10.1.2.4/32']],
    ['host__net_contained=10.0.0.0/8', ['10.1.2.1/24', '10.1.2.200/24', '10.1.2.4/32', '10.200.0.1/8']],
    ['host__net_contained=::ffff:10.0.0.0/104', ['::ffff:10.0.0.1/104']],
    ['host__net_contained_or_equal=128.0.0.0/1', ['128.0.0.1/1', '192.168.1.1/24', '255.255.255.254/24']],
    ['host__net_contains_or_equals=10.1.2.4/32', ['10.1.2.4/32']],
    ['host__net_equals=2001:db8::ffff/128', ['2001:db8::ffff/64']],
    ['host__net_equals=2001:db8::ffff/64', []],
    ['host__net_host=ff00::1', ['ff00::1/8']],
    ['host__net_in=10.1.2.4/24&host__net_in=10.200.0.1', ['10.1.2.4/32', '10.200.0.1/8']],
    ['host=10.1.2.4', ['10.1.2.4/32']],
    ['host__family=6', ['2001:db8::1/64', '2001:db8::ffff/64', '::ffff:10.0.0.1/104', 'ff00::1/8']],
    ['host__startswith=10.1.', ['10.1.2.1/24', '10.1.2.200/24', '10.1.2.4/32']],
    ['host__istartswith=FF00:', ['ff00::1/8']],
    ['host__endswith=ffff', ['2001:db8::ffff/64']],
    ['host__iendswith=:FFFF', ['2001:db8::ffff/64']],
    ['host__exact=255.255.255.254', ['255.255.255.254/24']],
    ['host__iexact=2001:DB8::1', ['2001:db8::1/64']],
    ['host__regex=%5E10%5C.1%5C.2%5C.[0-9]$', ['10.1.2.1/24', '10.1.2.4/32']],
    ['host__iregex=^FF00', ['ff00::1/8']],
    ['address=10.1.2.4/32', ['10.1.2.4/32']],
    ['address=10.1.2.4/24', []],
    ['address=10.1.2.4&address=2001:db8::1/64', ['10.1.2.4/32', '2001:db8::1/64']],
    ['prefix=10.1.2.0/24', ['10.1.2.1/24', '10.1.2.200/24', '10.1.2.4/32']],
    ['within=10.0.0.0/8', ['10.1.2.1/24', '10.1.2.200/24', '10.1.2.4/32', '10.200.0.1/8']],
    ['mask_length=24', ['10.1.2.1/24', '10.1.2.200/24', '192.168.1.1/24', '255.255.255.254/24']],
    ['ip_version=4&mask_length__lte=8', ['10.200.0.1/8', '128.0.0.1/1']],
    ['q=10.1.2', ['10.1.2.1/24', '10.1.2.200/24', '10.1.2.4/32']],
    ['parent=10.1.2.0/24', ['10.1.2.200/24']],
  ])('ip-addresses ?%s', async (query, expected) => {
    expect(await addresses(query)).toEqual(sorted(expected));
  });

  it('filters by parent id', async () => {
    expect(await addresses(`parent=${byPrefix.get('2001:db8::/32')!.id}`)).toEqual(['2001:db8::ffff/64']);
    expect(await prefixes(`parent=${byPrefix.get('10.1.2.0/24')!.id}`)).toEqual(['10.1.2.0/31', '10.1.2.4/32']);
  });

  it.each([
    ['prefixes', 'network__net_contained', '10.0.0.0/33'],
    ['prefixes', 'within', 'not-a-network'],
    ['prefixes', 'within_include', '10.0.0'],
    ['prefixes', 'contains', '10.0.0.256'],
    ['prefixes', 'prefix', '2001:db8::/129'],
    ['prefixes', 'network', 'fe80::1%25eth0'],
    ['prefixes', 'parent', '10.0.0.0/40'],
    ['ip-addresses', 'host__net_host_contained', '10.0.0.0/8/8'],
    ['ip-addresses', 'address', '192.168.0.0.100/24'],
    ['ip-addresses', 'prefix', '010.0.0.0/8'],
  ])('%s ?%s=%s is a 400 naming the parameter', async (path, param, value) => {
    const res = await t().get(`/api/ipam/${path}/?${param}=${value}`).expect(400);
    expect(res.body).toEqual({ [param]: [`Invalid IP address format: ${decodeURIComponent(value)}`] });
  });

  it('refuses an unknown family and a costly or broken pattern with 400', async () => {
    expect((await t().get('/api/ipam/prefixes/?network__family=5').expect(400)).body).toHaveProperty('network__family');
    expect((await t().get('/api/ipam/ip-addresses/?host__regex=(a%2B)%2B').expect(400)).body).toHaveProperty('host__regex');
    expect((await t().get('/api/ipam/ip-addresses/?host__regex=%5B').expect(400)).body).toHaveProperty('host__regex');
    await t().get('/api/ipam/prefixes/?network__net_nonsense=10.0.0.0/8').expect(400);
  });

  it('sorts networks by address, not by their text', async () => {
    const list = (await t().get('/api/ipam/prefixes/?ip_version=4&sort=network,prefix_length&limit=100').expect(200)).body.results.map((p: { prefix: string }) => p.prefix);
    expect(list).toEqual(['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.1.2.0/31', '10.1.2.4/32', '128.0.0.0/1', '192.168.0.0/16', '255.255.255.0/24']);
    const hosts = (await t().get('/api/ipam/ip-addresses/?ip_version=4&sort=-host').expect(200)).body.results.map((a: { host: string }) => a.host);
    expect(hosts).toEqual(['255.255.255.254', '192.168.1.1', '128.0.0.1', '10.200.0.1', '10.1.2.200', '10.1.2.4', '10.1.2.1']);
  });
});

export type { TestApp };
