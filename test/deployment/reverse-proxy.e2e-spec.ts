import { ADMIN_PASSWORD, ADMIN_TOKEN, startApp, TestApp } from '../../src/core/testing/harness';

/**
 * netkeel behind a reverse proxy (deployment issue): what the proxy says about the client's view
 * (`Forwarded`, `X-Forwarded-Proto`/`-Host`/`-Prefix`) is believed only from TRUST_PROXY peers, and
 * BASE_PATH puts every route, redirect, cookie and URL under a path. Supertest connects from
 * 127.0.0.1, which the default TRUST_PROXY (loopback) trusts; the untrusted case sets TRUST_PROXY
 * to an address the tests never connect from. test/deployment/nginx.e2e-spec.ts repeats the
 * essentials through a real nginx where one is installed.
 */

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const cookiesOf = (res: { headers: Record<string, unknown> }) => ((res.headers['set-cookie'] as string[] | undefined) ?? []);
const pairs = (set: string[]) => set.map((c) => c.split(';')[0]).filter((c) => !c.endsWith('='));

/** Every string in a JSON value that looks like a URL. */
function urlsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string' && /^https?:\/\//.test(v)) out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => urlsIn(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => urlsIn(x, out));
  return out;
}

async function seed(t: TestApp, prefix = '') {
  const group = (await t.post(`${prefix}/api/tenancy/tenant-groups/`, { name: 'Group A' }).expect(201)).body;
  const tenants = (await t.post(`${prefix}/api/tenancy/tenants/`, [1, 2, 3].map((i) => ({ name: `T${i}`, tenant_group: group.id }))).expect(201)).body;
  await t.post(`${prefix}/api/tenancy/tenants/${tenants[0].id}/notes/`, { note: 'behind the proxy' }).expect(201);
  return { group, tenants };
}

describe('behind a trusted proxy (TRUST_PROXY default: loopback)', () => {
  let t: TestApp;
  let tenantId: string;
  beforeAll(async () => {
    t = await startApp('pglite', { env: { ALLOWED_HOSTS: 'netkeel.example.com,127.0.0.1' } });
    tenantId = (await seed(t)).tenants[0].id;
  });
  afterAll(() => t?.close());

  const proxied = (path: string) =>
    t.get(path).set('X-Forwarded-Proto', 'https').set('X-Forwarded-Host', 'netkeel.example.com').set('X-Forwarded-Prefix', '/nk');

  it('builds every URL from X-Forwarded-Proto, -Host and -Prefix', async () => {
    const root = (await proxied('/api/').expect(200)).body;
    expect(root.tenancy).toBe('https://netkeel.example.com/nk/api/tenancy/');
    const list = (await proxied('/api/tenancy/tenants/?limit=1&offset=1').expect(200)).body;
    expect(list.next).toBe('https://netkeel.example.com/nk/api/tenancy/tenants/?limit=1&offset=2');
    expect(list.previous).toBe('https://netkeel.example.com/nk/api/tenancy/tenants/?limit=1');
    const detail = (await proxied(`/api/tenancy/tenants/${tenantId}/`).expect(200)).body;
    expect(detail.url).toBe(`https://netkeel.example.com/nk/api/tenancy/tenants/${tenantId}/`);
    expect(detail.tenant_group.url).toMatch(/^https:\/\/netkeel\.example\.com\/nk\/api\/tenancy\/tenant-groups\/[0-9a-f-]{36}\/$/);
    expect(detail.notes_url).toBe(`${detail.url}notes/`);
    const notes = (await proxied(`/api/tenancy/tenants/${tenantId}/notes/`).expect(200)).body;
    expect(notes.count).toBe(1);
    const deep = (await proxied('/api/tenancy/tenants/?depth=2').expect(200)).body;
    for (const body of [root, list, detail, notes, deep]) {
      for (const u of urlsIn(body)) expect(u.startsWith('https://netkeel.example.com/nk/api/')).toBe(true);
    }
    const home = (await proxied('/api/home/').expect(200)).body;
    expect(home.tenancy[0].url).toMatch(/^https:\/\/netkeel\.example\.com\/nk\/api\/tenancy\//);
  });

  it('reads RFC 7239 Forwarded (proto, host; quoted values; the first element)', async () => {
    const res = await t.get('/api/').set('Forwarded', 'for=192.0.2.60;proto=https;host="netkeel.example.com:8443", for=10.0.0.1;proto=http;host=inner').expect(200);
    expect(res.body.dcim).toBe('https://netkeel.example.com:8443/api/dcim/');
    // Forwarded wins over the X- headers when both are sent.
    const both = await t.get('/api/').set('Forwarded', 'proto=https;host=netkeel.example.com').set('X-Forwarded-Proto', 'http').set('X-Forwarded-Host', '127.0.0.1').expect(200);
    expect(both.body.dcim).toBe('https://netkeel.example.com/api/dcim/');
  });

  it('checks the forwarded host against ALLOWED_HOSTS, and refuses proxy headers it cannot read', async () => {
    const evil = await t.get('/api/').set('X-Forwarded-Host', 'evil.example').expect(400);
    expect(evil.body.detail).toMatch(/Invalid HTTP_HOST header: "evil\.example"/);
    await t.get('/api/').set('Forwarded', 'host=evil.example').expect(400);
    expect((await t.get('/api/').set('X-Forwarded-Proto', 'gopher').expect(400)).body.detail).toMatch(/forwarded protocol/);
    expect((await t.get('/api/').set('X-Forwarded-Prefix', '/a/../b').expect(400)).body.detail).toMatch(/X-Forwarded-Prefix/);
    expect((await t.get('/api/').set('X-Forwarded-Prefix', 'https://evil.example/').expect(400)).body.detail).toMatch(/X-Forwarded-Prefix/);
  });

  it('puts redirects, the login form, cookies and the browsable API under the forwarded prefix and scheme', async () => {
    const slash = await t.http.get('/api/tenancy/tenants?limit=1').set('X-Forwarded-Prefix', '/nk').expect(302);
    expect(slash.headers.location).toBe('/nk/api/tenancy/tenants/?limit=1');
    const toLogin = await t.http.get('/api/dcim/').set('Accept', BROWSER).set('X-Forwarded-Prefix', '/nk').expect(302);
    expect(toLogin.headers.location).toBe('/nk/login/?next=%2Fnk%2Fapi%2Fdcim%2F');
    const form = await t.http.get('/login/?next=/nk/api/dcim/').set('X-Forwarded-Prefix', '/nk').set('X-Forwarded-Proto', 'https').expect(200);
    expect(form.text).toContain('action="/nk/login/"');
    expect(form.text).toContain('name="next" value="/nk/api/dcim/"');
    expect(cookiesOf(form)[0]).toMatch(/Path=\/nk\/login\/;.*Secure/);
    // a next outside the prefix is not this service's page
    expect((await t.http.get('/login/?next=/api/dcim/').set('X-Forwarded-Prefix', '/nk').expect(200)).text).toContain('name="next" value="/nk/api/"');
    const token = /name="csrfmiddlewaretoken" value="([0-9a-f]+)"/.exec(form.text)![1];
    const login = await t.http
      .post('/login/')
      .set('X-Forwarded-Prefix', '/nk')
      .set('X-Forwarded-Proto', 'https')
      .set('Cookie', pairs(cookiesOf(form)).join('; '))
      .type('form')
      .send({ csrfmiddlewaretoken: token, username: 'admin', password: ADMIN_PASSWORD, next: '/nk/api/dcim/' })
      .expect(303);
    expect(login.headers.location).toBe('/nk/api/dcim/');
    const set = cookiesOf(login);
    expect(set.find((c) => c.startsWith('netkeel_session='))).toMatch(/Path=\/nk\/;.*HttpOnly;.*Secure/);
    const cookie = pairs(set).join('; ');
    const page = await t.http.get('/api/').set('Accept', BROWSER).set('Cookie', cookie).set('X-Forwarded-Prefix', '/nk').set('X-Forwarded-Proto', 'https').set('X-Forwarded-Host', 'netkeel.example.com').expect(200);
    expect(page.text).toContain('<a href="https://netkeel.example.com/nk/api/dcim/">');
    expect(page.text).toContain('<a href="/nk/api/"><strong>netkeel</strong></a>');
    expect(page.text).toContain('action="/nk/logout/"');
    expect(page.text).toContain('<b>GET /nk/api/</b>');
    const csrf = pairs(set).find((c) => c.startsWith('csrftoken='))!.split('=')[1];
    const logout = await t.http.post('/logout/').set('X-Forwarded-Prefix', '/nk').set('Cookie', cookie).type('form').send({ csrfmiddlewaretoken: csrf }).expect(303);
    expect(logout.headers.location).toBe('/nk/login/');
    expect(cookiesOf(logout).every((c) => /Path=\/nk\//.test(c))).toBe(true);
  });

  it('names the external root as the OpenAPI server', async () => {
    const doc = await t.http.get('/api/swagger.json').set('X-Forwarded-Proto', 'https').set('X-Forwarded-Host', 'netkeel.example.com').set('X-Forwarded-Prefix', '/nk').expect(200);
    expect(JSON.parse(doc.text).servers).toEqual([{ url: 'https://netkeel.example.com/nk' }]);
  });
});

describe('a peer that is not a trusted proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Supertest connects from 127.0.0.1, which this list does not name.
    t = await startApp('pglite', { env: { TRUST_PROXY: '10.1.2.3,192.168.0.0/16', ALLOWED_HOSTS: '127.0.0.1' } });
    await seed(t);
  });
  afterAll(() => t?.close());

  it('has its proxy headers ignored: URLs come from the connection and the Host header', async () => {
    const spoof = (path: string) =>
      t
        .get(path)
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'evil.example')
        .set('X-Forwarded-Prefix', '/evil')
        .set('Forwarded', 'proto=https;host=evil.example');
    const root = (await spoof('/api/').expect(200)).body;
    expect(root.dcim).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/dcim\/$/);
    const list = (await spoof('/api/tenancy/tenants/?limit=1&depth=1').expect(200)).body;
    expect(list.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/tenancy\/tenants\/\?depth=1&limit=1&offset=1$/);
    for (const u of urlsIn(list)) expect(u).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\//);
    // and so is a header a trusted proxy would be refused for
    await t.get('/api/').set('X-Forwarded-Proto', 'gopher').expect(200);
    const slash = await t.http.get('/api/dcim').set('X-Forwarded-Prefix', '/evil').expect(302);
    expect(slash.headers.location).toBe('/api/dcim/');
  });

  it('is held to ALLOWED_HOSTS by its own Host header', async () => {
    await t.get('/api/').set('Host', 'evil.example').expect(400);
    await t.get('/api/').set('X-Forwarded-Host', 'netkeel.example.com').expect(200);
  });

  it('does not choose the address login throttling counts (X-Forwarded-For ignored)', async () => {
    // Wrong passwords "from" different forwarded addresses come from one address: the sixth is throttled.
    const wrong = (i: number) => t.http.post('/api/users/tokens/').set('X-Forwarded-For', `10.9.9.${i}`).auth('admin', `wrong-${i}`).send({});
    for (let i = 0; i < 5; i++) await wrong(i).expect(403);
    await wrong(5).expect(429);
  });
});

describe('BASE_PATH', () => {
  let t: TestApp;
  let tenantId: string;
  const BASE = '/netkeel';
  beforeAll(async () => {
    t = await startApp('pglite', { env: { BASE_PATH: 'netkeel/', ALLOWED_HOSTS: 'netkeel.example.com' } });
    // Host: the harness's requests go to 127.0.0.1, which ALLOWED_HOSTS does not name
    const orig = t.get;
    t.get = (p, tok) => orig(p, tok).set('Host', 'netkeel.example.com');
    const post = t.post;
    t.post = (p, b, tok) => post(p, b, tok).set('Host', 'netkeel.example.com');
    tenantId = (await seed(t, BASE)).tenants[0].id;
  });
  afterAll(() => t?.close());

  it('serves every route under the path, and nothing outside it', async () => {
    const root = (await t.get(`${BASE}/api/`).expect(200)).body;
    expect(root.tenancy).toBe('http://netkeel.example.com/netkeel/api/tenancy/');
    expect((await t.get('/api/').expect(404)).body).toEqual({ detail: 'Not found.' });
    await t.get('/netkeelx/api/').expect(404);
    expect((await t.get(BASE).expect(302)).headers.location).toBe(`${BASE}/`);
    expect((await t.get(`${BASE}/api/dcim`).expect(302)).headers.location).toBe(`${BASE}/api/dcim/`);
    const list = (await t.get(`${BASE}/api/tenancy/tenants/?limit=1&depth=1`).expect(200)).body;
    expect(list.next).toBe('http://netkeel.example.com/netkeel/api/tenancy/tenants/?depth=1&limit=1&offset=1');
    for (const u of urlsIn(list)) expect(u.startsWith('http://netkeel.example.com/netkeel/api/')).toBe(true);
    const detail = (await t.get(`${BASE}/api/tenancy/tenants/${tenantId}/`).expect(200)).body;
    expect(detail.url).toBe(`http://netkeel.example.com/netkeel/api/tenancy/tenants/${tenantId}/`);
    expect(detail.notes_url).toBe(`${detail.url}notes/`);
    const notes = (await t.get(`${BASE}/api/tenancy/tenants/${tenantId}/notes/`).expect(200)).body;
    for (const u of urlsIn(notes)) expect(u.startsWith('http://netkeel.example.com/netkeel/api/')).toBe(true);
    // a reference given by its external URL is understood on write
    await t.post(`${BASE}/api/tenancy/tenants/`, { name: 'by url', tenant_group: detail.tenant_group.url }).expect(201);
  });

  it('adds a forwarded prefix in front of it', async () => {
    const root = (await t.get(`${BASE}/api/`).set('X-Forwarded-Prefix', '/outer').set('X-Forwarded-Proto', 'https').expect(200)).body;
    expect(root.dcim).toBe('https://netkeel.example.com/outer/netkeel/api/dcim/');
  });

  it('keeps the login, its cookies and the docs under the path', async () => {
    const toLogin = await t.get(`${BASE}/api/dcim/`, null).set('Accept', BROWSER).expect(302);
    expect(toLogin.headers.location).toBe(`${BASE}/login/?next=%2Fnetkeel%2Fapi%2Fdcim%2F`);
    const form = await t.get(`${BASE}/login/?next=${BASE}/api/dcim/`, null).expect(200);
    expect(form.text).toContain(`action="${BASE}/login/"`);
    const token = /name="csrfmiddlewaretoken" value="([0-9a-f]+)"/.exec(form.text)![1];
    const login = await t.http
      .post(`${BASE}/login/`)
      .set('Host', 'netkeel.example.com')
      .set('Cookie', pairs(cookiesOf(form)).join('; '))
      .type('form')
      .send({ csrfmiddlewaretoken: token, username: 'admin', password: ADMIN_PASSWORD, next: `${BASE}/api/dcim/` })
      .expect(303);
    expect(login.headers.location).toBe(`${BASE}/api/dcim/`);
    expect(cookiesOf(login).every((c) => c.includes(`Path=${BASE}/;`))).toBe(true);
    const page = await t.get(`${BASE}/api/dcim/`, null).set('Accept', BROWSER).set('Cookie', pairs(cookiesOf(login)).join('; ')).expect(200);
    expect(page.text).toContain('<a href="http://netkeel.example.com/netkeel/api/dcim/locations/">');
    expect(page.text).toContain(`<a href="${BASE}/api/"><strong>netkeel</strong></a>`);
    const docs = await t.get(`${BASE}/api/docs/`, null).expect(200);
    expect(docs.text).toContain(`src="${BASE}/api/docs/static/swagger-init.js"`);
    expect(docs.text).toContain(`data-url="${BASE}/api/swagger.json?api_version=2.4"`);
    await t.get(`${BASE}/api/docs/static/swagger-init.js`, null).expect(200);
    const doc = JSON.parse((await t.get(`${BASE}/api/swagger.json`, null).expect(200)).text);
    expect(doc.servers).toEqual([{ url: 'http://netkeel.example.com/netkeel' }]);
    expect(doc.paths['/api/dcim/locations/']).toBeDefined();
  });

  it('answers the probes under the path whatever the Host (a container probe uses its own address)', async () => {
    expect((await t.http.get(`${BASE}/health/`).set('Host', '127.0.0.1:8080').expect(200)).body).toBeDefined();
    await t.http.get(`${BASE}/ready/`).set('Host', '127.0.0.1:8080').expect(200);
    await t.http.get(`${BASE}/api/`).set('Host', '127.0.0.1:8080').set('Authorization', `Token ${ADMIN_TOKEN}`).expect(400);
  });
});
