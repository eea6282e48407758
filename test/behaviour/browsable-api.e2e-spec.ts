import { ADMIN_PASSWORD, eachDatabase } from '../../src/core/testing/harness';

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
