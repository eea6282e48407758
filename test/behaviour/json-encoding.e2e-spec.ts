import { eachDatabase } from '../../src/core/testing/harness';

/**
 * List pages are encoded by an encoder compiled for their keys, which writes the strings netkeel
 * builds itself without escaping them: what a client sends must still come back as valid JSON
 * that says exactly what was sent.
 */
eachDatabase('JSON encoding of lists', (t) => {
  it('escapes text a client wrote, in names and in the Host its URLs carry (a Host that is no host name is refused)', async () => {
    const group = (await t().post('/api/tenancy/tenant-groups/', { name: 'Group "A"' }).expect(201)).body;
    const names = ['Quote " and \\ backslash', 'Line\nbreak\ttab', 'Ünïcode → ✓ 😀', 'mid \u2028 separators \u2029 text'];
    await t().post('/api/tenancy/tenants/', names.map((name) => ({ name, tenant_group: group.id }))).expect(201);
    // A Host that is no host name never reaches a URL: refused, and named in valid JSON.
    const odd = 'odd"host\\name:8080';
    const refused = await t().get('/api/tenancy/tenants/').set('Host', odd).expect(400);
    expect(JSON.parse(refused.text)).toEqual({ detail: `Invalid HTTP_HOST header: ${JSON.stringify(odd)}. You may need to add it to ALLOWED_HOSTS.` });
    const host = 'Odd-Host_name.example:8080';
    const res = await t().get('/api/tenancy/tenants/?sort=name&limit=10').set('Host', host).expect(200);
    const body = JSON.parse(res.text); // the raw text, not a client's lenient parse
    expect(body.results.map((r: { name: string }) => r.name)).toEqual([...names].sort());
    for (const r of body.results) {
      expect(r.url).toBe(`http://${host}/api/tenancy/tenants/${r.id}/`);
      expect(r.tenant_group).toEqual({ id: group.id, object_type: 'tenancy.tenantgroup', url: `http://${host}/api/tenancy/tenant-groups/${group.id}/` });
    }
    // The same page through a plain host: the same objects, the URLs aside.
    const plain = JSON.parse((await t().get('/api/tenancy/tenants/?sort=name&limit=10').expect(200)).text);
    expect(plain.results.map((r: { name: string; display: string }) => [r.name, r.display])).toEqual(body.results.map((r: { name: string; display: string }) => [r.name, r.display]));
  });
});
