import { eachDatabase } from '../../src/core/testing/harness';
import { person, role } from '../identity/messages';
import { createInterfaces, interfaceId } from '../support/ipam-fixtures';

type Obj = Record<string, any>;

/**
 * Displays that name a related object (`displayUses`): a list page reads the related object's
 * columns in its own statement, a detail by id. Every such display, on both, says what it should,
 * so a display that reads a column its definition does not declare shows up here.
 */
eachDatabase('displays naming related objects', (t) => {
  const post = async (path: string, body: unknown) => {
    const res = await t().post(path, body);
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Obj;
  };
  /** The display of `obj` on its detail and on a list page, which must agree. */
  const display = async (obj: Obj) => {
    const path = new URL(obj.url).pathname;
    const detail = (await t().get(path).expect(200)).body.display;
    const listed = (await t().get(`${path.replace(`${obj.id}/`, '')}?id=${obj.id}`).expect(200)).body.results[0].display;
    expect(listed).toBe(detail);
    return detail as string;
  };

  it('names the namespace of prefixes and VRFs, and the VRF and prefix of an assignment', async () => {
    const ns = await post('/api/ipam/namespaces/', { name: 'Display NS' });
    const prefix = await post('/api/ipam/prefixes/', { prefix: '10.200.0.0/16', status: 'Active', namespace: ns.id });
    const vrf = await post('/api/ipam/vrfs/', { name: 'red', namespace: ns.id });
    expect(await display(prefix)).toBe('10.200.0.0/16: Display NS');
    expect(await display(vrf)).toBe('Display NS: (red)');
    expect(await display(await post('/api/ipam/vrf-prefix-assignments/', { vrf: vrf.id, prefix: prefix.id }))).toBe('red: 10.200.0.0/16');
  });

  it('names the address of an interface assignment', async () => {
    await createInterfaces(t(), 'Display', [7]);
    await post('/api/ipam/prefixes/', { prefix: '10.201.0.0/24', status: 'Active' });
    const ip = await post('/api/ipam/ip-addresses/', { address: '10.201.0.7/24', status: 'Active', namespace: 'Global' });
    expect(await display(await post('/api/ipam/ip-address-to-interface/', { ip_address: ip.id, interface: interfaceId(7) }))).toBe('10.201.0.7/24 Display fixture one eth7');
  });

  it("names a token's user", async () => {
    const token = await post('/api/users/tokens/', { description: 'display' });
    expect(await display(token)).toBe(`${token.key.slice(-6)} (admin)`);
  });

  it("names an external identity's source and a role's identity", async () => {
    await post('/api/identity/sources/', { name: 'Display Source', slug: 'display-src', username_identifier_type: 'employeeNumber' });
    const body = person({ given: 'Ada', employeeNumber: 'D1', roles: [role('eng-1', 'staff')] });
    await t().put('/api/identity/sources/display-src/identities/d1/', body).expect(201);
    const identity = (await t().get('/api/identity/external-identities/?sor_id=d1').expect(200)).body.results[0];
    expect(await display(identity)).toBe(`${identity.name} (display-src:d1)`);
    const roleRow = (await t().get(`/api/identity/external-identity-roles/?identity=${identity.id}`).expect(200)).body.results[0];
    expect(await display(roleRow)).toBe(`${identity.name}: eng-1 (staff)`);
  });
});
