import { ADMIN_PASSWORD, startApp, TestApp } from '../../src/core/testing/harness';
import { browserSuite, CheckedPage, logIn, screenshot } from '../support/browser';

/**
 * The browsable API as a person uses it in Chromium: log in, browse to a list, filter, create
 * an object with the generated form, edit it, delete it, log out from an error page. Each step
 * asserts what the page shows and what the API then holds; no page logs an error or a CSP
 * violation. Screenshots: `UPDATE_SCREENSHOTS=1` (docs/images/, shown in the README).
 */
browserSuite('the browsable API in a browser', (browser) => {
  let t: TestApp;
  let p: CheckedPage;
  beforeAll(async () => {
    t = await startApp('pglite');
    for (const name of ['alpha-net', 'beta-net']) await t.post('/api/tenancy/tenants/', { name, description: `${name} tenant` }).expect(201);
    p = await browser().open(t);
  });
  afterAll(async () => {
    await p?.close();
    await t?.close();
  });
  const text = (selector: string) => p.page.locator(selector).first().innerText();
  /** Clicks and waits for the page that the click loads. */
  const submit = async (selector: string) => {
    await Promise.all([p.page.waitForEvent('load'), p.page.locator(selector).click()]);
  };
  const tenantNamed = async (name: string) => (await t.get(`/api/tenancy/tenants/?name=${name}`).expect(200)).body.results[0];

  it('logs in and browses to a list', async () => {
    await logIn(p, 'admin', ADMIN_PASSWORD, '/api/');
    expect(await text('header')).toMatch(/admin\s+Log out/);
    expect(await text('header')).toContain('API 2.4');
    await Promise.all([p.page.waitForEvent('load'), p.page.getByRole('link', { name: '"http://127.0.0.1', exact: false }).filter({ hasText: '/api/tenancy/"' }).click()]);
    await submit('a:has-text("/api/tenancy/tenants/")');
    expect(new URL(p.page.url()).pathname).toBe('/api/tenancy/tenants/');
    expect(await text('h1')).toBe('Tenants');
    expect(await text('pre.response')).toContain('"count": 2');
    expect(await text('.range')).toBe('1–2 of 2');
    await screenshot(p.page, 'browsable-list');
    p.expectClean();
  });

  it('filters the list', async () => {
    await p.page.locator('details.filters summary').click();
    await p.page.locator('details.filters input[name="name"]').fill('alpha-net');
    await submit('details.filters button');
    expect(new URL(p.page.url()).searchParams.get('name')).toBe('alpha-net');
    const shown = await text('pre.response');
    expect(shown).toContain('"count": 1');
    expect(shown).toContain('alpha-net');
    expect(shown).not.toContain('beta-net');
    p.expectClean();
  });

  it('creates an object with the generated form', async () => {
    await p.goto('/api/tenancy/tenants/');
    await p.page.locator('details.html-form summary').click();
    await p.page.locator('details.html-form input[name="name"]').fill('gamma-net');
    await p.page.locator('details.html-form input[name="description"]').fill('made in a browser');
    await screenshot(p.page, 'browsable-create');
    await submit('details.html-form button:has-text("POST")');
    expect(await text('pre.req')).toContain('HTTP 201 Created');
    expect(await text('pre.response')).toContain('"name": "gamma-net"');
    expect(await tenantNamed('gamma-net')).toMatchObject({ description: 'made in a browser' });
    p.expectClean();
  });

  it('edits it', async () => {
    const created = await tenantNamed('gamma-net');
    // From the response, its URL is a link to its page.
    await submit(`pre.response a[href$="/tenants/${created.id}/"]`);
    expect(await text('h1')).toBe('Tenant');
    await p.page.locator('details.html-form summary').click();
    expect(await p.page.locator('details.html-form input[name="name"]').inputValue()).toBe('gamma-net');
    await p.page.locator('details.html-form input[name="description"]').fill('edited in a browser');
    await submit('details.html-form button:has-text("PATCH")');
    expect(await text('pre.req')).toContain('HTTP 200 OK');
    expect((await t.get(`/api/tenancy/tenants/${created.id}/`).expect(200)).body.description).toBe('edited in a browser');
    // A mistake in raw data: the error, and the content as typed to fix it.
    await p.page.locator('details.raw summary').click();
    await p.page.locator('details.raw textarea').fill('{"name": ""}');
    await submit('details.raw button:has-text("PATCH")');
    expect(await text('pre.req')).toContain('HTTP 400 Bad Request');
    expect(await text('pre.response')).toContain('This field may not be blank.');
    expect(await p.page.locator('details.raw textarea').inputValue()).toBe('{"name": ""}');
    expect(await tenantNamed('gamma-net')).toBeDefined();
    await p.goto(`/api/tenancy/tenants/${created.id}/`);
    await screenshot(p.page, 'browsable-detail');
    p.expectClean();
  });

  it('deletes it', async () => {
    const created = await tenantNamed('gamma-net');
    await p.page.locator('details.delete summary').click();
    await submit('details.delete button:has-text("DELETE")');
    expect(new URL(p.page.url()).pathname).toBe('/api/tenancy/tenants/');
    expect(await text('pre.response')).not.toContain('gamma-net');
    await t.get(`/api/tenancy/tenants/${created.id}/`).expect(404);
    p.expectClean();
  });

  it('logs out from an error page', async () => {
    expect(await p.goto('/api/no-such-app/')).toBe(404);
    expect(await text('pre.req')).toContain('HTTP 404 Not Found');
    expect(await text('header')).toMatch(/admin\s+Log out/);
    await screenshot(p.page, 'browsable-error');
    await submit('header button:has-text("Log out")');
    expect(new URL(p.page.url()).pathname).toBe('/login/');
    // The session is over: the API sends the browser to the login page again.
    await p.goto('/api/tenancy/tenants/');
    expect(new URL(p.page.url()).pathname).toBe('/login/');
    p.expectClean();
  });
});
