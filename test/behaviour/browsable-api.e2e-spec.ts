import { ADMIN_PASSWORD, eachDatabase, TestApp } from '../../src/core/testing/harness';
import { sessionCookieFor } from '../support/users';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const cookiesOf = (res: { headers: Record<string, unknown> }) =>
  ((res.headers['set-cookie'] as string[] | undefined) ?? []).map((c) => c.split(';')[0]).filter((c) => !c.endsWith('='));

eachDatabase('browsable API and sessions', (t) => {
  const login = async (username: string, password: string) => {
    const page = await t().http.get('/login/?next=/api/dcim/').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const token = /name="csrfmiddlewaretoken" value="([0-9a-f]+)"/.exec(page.text)![1];
    return t()
      .http.post('/login/')
      .set('Cookie', cookiesOf(page).join('; '))
      .type('form')
      .send({ csrfmiddlewaretoken: token, username, password, next: '/api/dcim/' });
  };

  it('sends browsers that are not logged in to the login page', async () => {
    const res = await t().http.get('/api/dcim/locations/').set('Accept', BROWSER).expect(302);
    expect(res.headers.location).toBe('/login/?next=%2Fapi%2Fdcim%2Flocations%2F');
  });

  it('logs in with a signed HttpOnly SameSite=Lax cookie and renders the API as HTML with links', async () => {
    const res = await login('admin', ADMIN_PASSWORD);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/api/dcim/');
    const set = res.headers['set-cookie'] as unknown as string[];
    const session = set.find((c) => c.startsWith('netkeel_session='))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    const cookie = cookiesOf(res).join('; ');
    const html = await t().http.get('/api/').set('Accept', BROWSER).set('Cookie', cookie).expect(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(html.text).toMatch(/<a href="http:\/\/127\.0\.0\.1:\d+\/api\/dcim\/">/);
    const list = await t().http.get('/api/dcim/location-types/').set('Accept', BROWSER).set('Cookie', cookie).expect(200);
    expect(list.text).toContain('&quot;count&quot;');
    // the same session works for JSON too
    await t().http.get('/api/dcim/location-types/').set('Cookie', cookie).expect(200);
  });

  it('escapes everything it renders', async () => {
    const cookie = cookiesOf(await login('admin', ADMIN_PASSWORD)).join('; ');
    await t().post('/api/tenancy/tenants/', { name: '<script>alert(1)</script>' }).expect(201);
    const html = await t().http.get('/api/tenancy/tenants/').set('Accept', BROWSER).set('Cookie', cookie).expect(200);
    expect(html.text).not.toContain('<script>alert(1)</script>');
    expect(html.text).toContain('&lt;script&gt;');
  });

  // A list route's page is made as it is written (json-encoder's asWritten); the browsable page
  // reads it instead, and must show the representations, not the rows they are made from.
  it('shows a list page of several objects as their representations', async () => {
    const cookie = cookiesOf(await login('admin', ADMIN_PASSWORD)).join('; ');
    await t().post('/api/tenancy/tenants/', [{ name: 'shown-a' }, { name: 'shown-b' }]).expect(201);
    const json = await t().get('/api/tenancy/tenants/?name=shown-a&name=shown-b').expect(200);
    expect(json.body.results).toHaveLength(2);
    const html = await t().http.get('/api/tenancy/tenants/?name=shown-a&name=shown-b').set('Accept', BROWSER).set('Cookie', cookie).expect(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    for (const o of json.body.results as { id: string; notes_url: string }[]) {
      expect(html.text).toContain(`&quot;${o.id}&quot;`);
      expect(html.text).toContain(o.notes_url);
    }
    expect(html.text.match(/&quot;natural_slug&quot;/g)).toHaveLength(2);
    expect(html.text).not.toContain('tenant_group_id');
  });

  it('requires the CSRF token for writes made with the session cookie', async () => {
    const res = await login('admin', ADMIN_PASSWORD);
    const cookies = cookiesOf(res);
    const csrf = cookies.find((c) => c.startsWith('csrftoken='))!.split('=')[1];
    const cookie = cookies.join('; ');
    const denied = await t().http.post('/api/tenancy/tenants/').set('Cookie', cookie).send({ name: 'csrf-less' }).expect(403);
    expect(denied.body.detail).toMatch(/CSRF/);
    await t().http.post('/api/tenancy/tenants/').set('Cookie', cookie).set('X-CSRFToken', csrf).send({ name: 'with csrf' }).expect(201);
  });

  it('rejects a wrong password and a forged login form', async () => {
    const bad = await login('admin', 'wrong');
    expect(bad.status).toBe(200);
    expect(bad.text).toMatch(/correct username and password/);
    expect(cookiesOf(bad).some((c) => c.startsWith('netkeel_session='))).toBe(false);
    const forged = await t().http.post('/login/').type('form').send({ csrfmiddlewaretoken: 'x', username: 'admin', password: ADMIN_PASSWORD });
    expect(forged.status).toBe(403);
  });

  it('never redirects off-site after login', async () => {
    const page = await t().http.get('/login/?next=//evil.example/').expect(200);
    expect(page.text).toContain('name="next" value="/api/"');
  });

  it('ends the session at logout', async () => {
    const res = await login('admin', ADMIN_PASSWORD);
    const cookies = cookiesOf(res);
    const csrf = cookies.find((c) => c.startsWith('csrftoken='))!.split('=')[1];
    const cookie = cookies.join('; ');
    await t().http.post('/logout/').set('Cookie', cookie).type('form').send({ csrfmiddlewaretoken: csrf }).expect(303);
    await t().http.get('/api/dcim/locations/').set('Cookie', cookie).expect(403);
  });

  it('throttles repeated failed logins with 429 and Retry-After', async () => {
    await t().post('/api/users/users/', { username: 'target', password: 'target-password' }).expect(201);
    const basic = `Basic ${Buffer.from('target:wrong').toString('base64')}`;
    for (let i = 0; i < 5; i++) await t().http.post('/api/users/tokens/').set('Authorization', basic).expect(403);
    const res = await t().http.post('/api/users/tokens/').set('Authorization', basic).expect(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // even the right password waits now
    const good = `Basic ${Buffer.from('target:target-password').toString('base64')}`;
    await t().http.post('/api/users/tokens/').set('Authorization', good).expect(429);
  });
});

/** A browser session of a user: its Cookie header and its CSRF token. */
async function browserOf(t: TestApp, username: string): Promise<{ cookie: string; csrf: string }> {
  const users = await t.get(`/api/users/users/?username=${username}`).expect(200);
  const cookie = await sessionCookieFor(t, users.body.results[0].id);
  return { cookie, csrf: /csrftoken=([^;]+)/.exec(cookie)![1] };
}

/** The value of a hidden form input on a page. */
const hiddenValue = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

eachDatabase('browsable API pages and forms', (t) => {
  let admin: { cookie: string; csrf: string };
  let tenant: { id: string; url: string };
  beforeAll(async () => {
    admin = await browserOf(t(), 'admin');
    tenant = (await t().post('/api/tenancy/tenants/', { name: 'html-tenant' }).expect(201)).body;
  });
  const page = (path: string, who = admin, accept = 'text/html') => t().http.get(path).set('Accept', accept).set('Cookie', who.cookie);
  const form = (path: string, fields: Record<string, string>, who = admin) => t().http.post(path).set('Accept', BROWSER).set('Cookie', who.cookie).type('form').send(fields);

  it('renders every URL that answers JSON as a page for a plain Accept: text/html and for ?format=api', async () => {
    const p = (await t().post('/api/ipam/prefixes/', { prefix: '198.51.100.0/29', status: 'Active' }).expect(201)).body;
    const note = await t().post(`/api/tenancy/tenants/${tenant.id}/notes/`, { note: 'noted' }).expect(201);
    const urls = ['/api/', '/api/tenancy/', '/api/status/', '/api/tenancy/tenants/', `/api/tenancy/tenants/${tenant.id}/`, `/api/tenancy/tenants/${tenant.id}/notes/`, `/api/extras/notes/${note.body.id}/`, `/api/ipam/prefixes/${p.id}/available-ips/`, `/api/ipam/prefixes/${p.id}/available-prefixes/`];
    for (const url of urls) {
      for (const res of [await page(url), await page(`${url}?format=api`, admin, 'application/json')]) {
        expect([url, res.status, res.headers['content-type']]).toEqual([url, 200, 'text/html; charset=utf-8']);
        expect(res.headers['content-security-policy']).toBe("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
        expect(res.text).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i);
        // The user, the API version, and a log-out form with the session's CSRF token.
        expect(res.text).toContain('<span class="user">admin</span>');
        expect(res.text).toContain('API 2.4');
        expect(hiddenValue(res.text, 'csrfmiddlewaretoken')).toBe(admin.csrf);
      }
    }
    // JSON clients get JSON, as before.
    const json = await t().http.get('/api/tenancy/tenants/').set('Cookie', admin.cookie).expect(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.body.count).toBeGreaterThan(0);
    const css = await t().http.get('/static/browsable.css').expect(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('shows a list with its filters, pagination, switches and create forms', async () => {
    for (const n of [1, 2, 3]) await t().post('/api/tenancy/tenants/', { name: `paged-${n}`, description: 'paged' }).expect(201);
    const res = await page('/api/tenancy/tenants/?description=paged&limit=2').expect(200);
    // filters, pre-filled from the query; other parameters carried along
    expect(res.text).toMatch(/<details class="filters" open>/);
    expect(res.text).toContain('<input name="description" value="paged"');
    expect(res.text).toContain('<input type="hidden" name="limit" value="2">');
    expect(res.text).toContain('<span class="range">1–2 of 3</span>');
    expect(res.text).toMatch(/<a rel="next" href="http:\/\/127\.0\.0\.1:\d+\/api\/tenancy\/tenants\/\?description=paged&amp;limit=2&amp;offset=2">Next »<\/a>/);
    // switches: formats, depth, page size, API version
    expect(res.text).toContain('<a href="/api/tenancy/tenants/?description=paged&amp;format=csv&amp;limit=2">csv</a>');
    expect(res.text).toContain('<a href="/api/tenancy/tenants/?depth=1&amp;description=paged&amp;limit=2">1</a>');
    expect(res.text).toContain('<a href="/api/tenancy/tenants/?description=paged&amp;limit=50">50</a>');
    expect(res.text).toContain('<a href="/api/tenancy/tenants/?api_version=2.0&amp;description=paged&amp;limit=2">2.0</a>');
    // create: raw data (the required fields as a template), the generated form, the OPTIONS guide
    expect(res.text).toContain('<h2>Create tenant</h2>');
    expect(res.text).toMatch(/<textarea name="_content"[^>]*>\{\n    &quot;name&quot;: &quot;&quot;\n\}<\/textarea>/);
    expect(res.text).toContain('<input type="hidden" name="_method" value="POST"><div class="grid">');
    expect(res.text).toContain('<summary>Fields (OPTIONS)</summary>');
  });

  it('creates, edits and deletes through the forms (method override with the session\'s CSRF token)', async () => {
    const created = await form('/api/tenancy/tenants/', { csrfmiddlewaretoken: admin.csrf, _method: 'POST', _content_type: 'application/json', _content: '{"name": "form-made"}' }).expect(201);
    expect(created.headers['content-type']).toBe('text/html; charset=utf-8');
    const id = /&quot;id&quot;<\/span>: <span class="s">&quot;([0-9a-f-]{36})/.exec(created.text)![1];
    expect((await t().get(`/api/tenancy/tenants/${id}/`).expect(200)).body.name).toBe('form-made');
    // PATCH and PUT from the raw form
    await form(`/api/tenancy/tenants/${id}/`, { csrfmiddlewaretoken: admin.csrf, _method: 'PATCH', _content: '{"description": "patched"}' }).expect(200);
    expect((await t().get(`/api/tenancy/tenants/${id}/`).expect(200)).body).toMatchObject({ name: 'form-made', description: 'patched' });
    await form(`/api/tenancy/tenants/${id}/`, { csrfmiddlewaretoken: admin.csrf, _method: 'PUT', _content: '{"name": "form-put"}' }).expect(200);
    expect((await t().get(`/api/tenancy/tenants/${id}/`).expect(200)).body).toMatchObject({ name: 'form-put', description: 'patched' });
    // The generated form: text read as a CSV row (numbers, related objects by name)
    await t().post('/api/dcim/location-types/', { name: 'form-type', content_types: ['dcim.location'] }).expect(201);
    const loc = await form('/api/dcim/locations/', { csrfmiddlewaretoken: admin.csrf, _method: 'POST', name: 'form-site', location_type: 'form-type', status: 'Active', asn: '65001', tenant: 'form-put', description: '' }).expect(201);
    const locId = /&quot;id&quot;<\/span>: <span class="s">&quot;([0-9a-f-]{36})/.exec(loc.text)![1];
    const stored = (await t().get(`/api/dcim/locations/${locId}/?depth=1`).expect(200)).body;
    expect([stored.asn, stored.location_type.name, stored.status.name, stored.tenant.name]).toEqual([65001, 'form-type', 'Active', 'form-put']);
    // An emptied field of the edit form clears the value.
    await form(`/api/dcim/locations/${locId}/`, { csrfmiddlewaretoken: admin.csrf, _method: 'PATCH', asn: '', tenant: '' }).expect(200);
    expect((await t().get(`/api/dcim/locations/${locId}/`).expect(200)).body).toMatchObject({ asn: null, tenant: null });
    // A bad submission shows the errors with the content as typed.
    const bad = await form(`/api/tenancy/tenants/${id}/`, { csrfmiddlewaretoken: admin.csrf, _method: 'PATCH', _content: '{"name": ""}' }).expect(400);
    expect(bad.text).toContain('This field may not be blank.');
    expect(bad.text).toMatch(/<textarea name="_content"[^>]*>\{&quot;name&quot;: &quot;&quot;\}<\/textarea>/);
    // DELETE: on to the list
    const del = await form(`/api/tenancy/tenants/${id}/`, { csrfmiddlewaretoken: admin.csrf, _method: 'DELETE' }).expect(303);
    expect(del.headers.location).toBe('/api/tenancy/tenants/');
    await t().get(`/api/tenancy/tenants/${id}/`).expect(404);
  });

  it('honours a form only from a browser session with its CSRF token, and changes nothing otherwise', async () => {
    const target = (await t().post('/api/tenancy/tenants/', { name: 'kept' }).expect(201)).body;
    const url = `/api/tenancy/tenants/${target.id}/`;
    const fields = { _method: 'DELETE' };
    // no token, a wrong token
    expect((await form(url, fields).expect(403)).text).toContain('CSRF Failed');
    await form(url, { ...fields, csrfmiddlewaretoken: 'x'.repeat(admin.csrf.length) }).expect(403);
    // a token client (even the superuser's) and Basic credentials never get an override
    const byToken = await t().post(url, undefined).type('form').send({ ...fields, csrfmiddlewaretoken: admin.csrf }).expect(403);
    expect(byToken.body.detail).toMatch(/browser session only/);
    const basic = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
    await t().http.post('/api/users/tokens/').set('Authorization', basic).type('form').send({ _content: '{}', csrfmiddlewaretoken: admin.csrf }).expect(403);
    // A form-typed body that is no browsable form (curl -d '') is left alone.
    await t().http.post('/api/users/tokens/').set('Authorization', basic).type('form').send('').expect(201);
    // nobody: to the login page (a browser) or 403
    await t().http.post(url).type('form').send({ ...fields, csrfmiddlewaretoken: admin.csrf }).expect(403);
    // methods and media types an override does not take
    await form(url, { _method: 'GET', csrfmiddlewaretoken: admin.csrf }).expect(400);
    await form(url, { _method: 'PATCH', _content_type: 'application/xml', _content: '<x/>', csrfmiddlewaretoken: admin.csrf }).expect(400);
    // a generated form only where a model's own list or detail reads it
    await form(`${url}notes/`, { note: 'x', csrfmiddlewaretoken: admin.csrf }).expect(415);
    expect((await t().get(url).expect(200)).body.name).toBe('kept');
  });

  it('logs out from an error page', async () => {
    const who = await browserOf(t(), 'admin');
    for (const [url, status] of [['/api/no-such-app/', 404], ['/api/tenancy/tenants/?format=xml', 406], ['/api/tenancy/tenants/?limit=1&depth=x', 400]] as const) {
      const res = await page(url, who).expect(status);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('<span class="user">admin</span>');
      expect(hiddenValue(res.text, 'csrfmiddlewaretoken')).toBe(who.csrf);
    }
    const res = await page('/api/no-such-app/', who).expect(404);
    const out = await t().http.post('/logout/').set('Cookie', who.cookie).type('form').send({ csrfmiddlewaretoken: hiddenValue(res.text, 'csrfmiddlewaretoken') }).expect(303);
    expect(out.headers.location).toBe('/login/');
    await t().http.get('/api/tenancy/tenants/').set('Cookie', who.cookie).expect(403);
  });

  it('shows each user only the forms and values their permissions allow', async () => {
    await t().post('/api/tenancy/tenants/', { name: 'secret-tenant', description: 'hidden' }).expect(201);
    const seen = (await t().post('/api/tenancy/tenants/', { name: 'seen-tenant', description: 'open' }).expect(201)).body;
    await t().userWith('html-viewer', [{ types: ['tenancy.tenant'], actions: ['view'], constraints: { description: 'open' } }]);
    await t().userWith('html-editor', [
      { types: ['tenancy.tenant'], actions: ['view', 'add'] },
      { types: ['tenancy.tenant'], actions: ['change', 'delete'], constraints: { description: 'open' } },
    ]);
    const viewer = await browserOf(t(), 'html-viewer');
    const editor = await browserOf(t(), 'html-editor');
    const list = await page('/api/tenancy/tenants/', viewer).expect(200);
    expect(list.text).toContain('seen-tenant');
    expect(list.text).not.toContain('secret-tenant');
    expect(list.text).not.toContain('<h2>Create');
    const detail = await page(`/api/tenancy/tenants/${seen.id}/`, viewer).expect(200);
    expect(detail.text).not.toMatch(/<h2>Edit|_method|Delete this/);
    // The editor may add, and change or delete only what its constraint allows.
    expect((await page('/api/tenancy/tenants/', editor).expect(200)).text).toContain('<h2>Create tenant</h2>');
    const editable = await page(`/api/tenancy/tenants/${seen.id}/`, editor).expect(200);
    expect(editable.text).toContain('<h2>Edit tenant</h2>');
    expect(editable.text).toContain('<summary>Delete this tenant</summary>');
    const other = await page(`/api/tenancy/tenants/${tenant.id}/`, editor).expect(200);
    expect(other.text).not.toMatch(/<h2>Edit|Delete this/);
    // ...and the API agrees.
    await form(`/api/tenancy/tenants/${tenant.id}/`, { csrfmiddlewaretoken: editor.csrf, _method: 'DELETE' }, editor).expect(404);
    await t().get(`/api/tenancy/tenants/${tenant.id}/`).expect(200);
  });
});

/** A fresh app: the address throttle below would slow every later test from this address. */
eachDatabase('password guessing from one address', (t) => {
  const loginForm = async (username: string, password: string) => {
    const page = await t().http.get('/login/').expect(200);
    const token = /name="csrfmiddlewaretoken" value="([0-9a-f]+)"/.exec(page.text)![1];
    return t().http.post('/login/').set('Cookie', cookiesOf(page).join('; ')).type('form').send({ csrfmiddlewaretoken: token, username, password });
  };

  it('throttles one address trying many usernames, on Basic and on the login form', async () => {
    // 20 failures, never more than 4 for one username: only the address limit can stop them.
    for (let i = 0; i < 20; i++) {
      const basic = `Basic ${Buffer.from(`guess-${Math.floor(i / 4)}:wrong`).toString('base64')}`;
      await t().http.post('/api/users/tokens/').set('Authorization', basic).expect(403);
    }
    const next = await t().http.post('/api/users/tokens/').set('Authorization', `Basic ${Buffer.from('someone-else:wrong').toString('base64')}`).expect(429);
    expect(Number(next.headers['retry-after'])).toBeGreaterThan(0);
    expect(next.body.detail).toBeDefined();
    const form = await loginForm('admin', ADMIN_PASSWORD);
    expect(form.status).toBe(429);
    expect(Number(form.headers['retry-after'])).toBeGreaterThan(0);
    expect(form.text).toMatch(/Too many failed attempts/);
    // Tokens still work: the throttle guards passwords only.
    await t().get('/api/dcim/locations/').expect(200);
  });
});
