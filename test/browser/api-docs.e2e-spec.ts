import { ADMIN_TOKEN, startApp, TestApp } from '../../src/core/testing/harness';
import { browserSuite, CheckedPage, screenshot } from '../support/browser';

/** Authorizes Swagger UI with the superuser's key alone: the page sends it as the API takes it, `Token <key>`. */
async function authorize(p: CheckedPage): Promise<void> {
  await p.page.click('.auth-wrapper .authorize');
  const dialog = p.page.locator('.dialog-ux');
  await dialog.locator('input[type=text]').first().fill(ADMIN_TOKEN);
  await dialog.locator('button.authorize').first().click();
  await dialog.locator('button.close-modal').click();
}

/** The API's documentation pages in Chromium: Swagger UI used as a person would, and ReDoc. */
browserSuite('API documentation in a browser', (browser) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite');
  });
  afterAll(() => t?.close());

  it('authorizes Swagger UI with a token and creates an object with "Try it out"', async () => {
    const p = await browser().open(t);
    expect(await p.goto('/api/docs/')).toBe(200);
    // The apps are folded: open one, then its operation.
    await p.page.click('#operations-tag-tenancy');
    const op = p.page.locator('#operations-tenancy-tenancy_tenants_create');
    await op.locator('.opblock-summary').click();
    await op.locator('.opblock-body').waitFor();

    await authorize(p);

    await op.locator('button.try-out__btn').click();
    await op.locator('textarea.body-param__text').fill(JSON.stringify({ name: 'Made with Try it out', description: 'from Swagger UI' }));
    const [response] = await Promise.all([p.page.waitForResponse((r) => r.url().endsWith('/api/tenancy/tenants/') && r.request().method() === 'POST'), op.locator('button.execute').click()]);
    expect(response.status()).toBe(201);
    // Sent as the page's API version, with the token.
    expect(response.request().headers().accept).toMatch(/version=2\.4/);
    const shown = op.locator('.live-responses-table tbody .response-col_status').first();
    await shown.waitFor();
    expect(await shown.textContent()).toContain('201');
    await op.locator('.responses-wrapper').evaluate((e) => e.scrollIntoView());
    await screenshot(p.page, 'api-docs');
    const made = (await t.get('/api/tenancy/tenants/?name=Made%20with%20Try%20it%20out').expect(200)).body;
    expect(made.count).toBe(1);
    expect(made.results[0].description).toBe('from Swagger UI');
    p.expectClean();
    await p.close();
  });

  it('shows the document of the API version asked for, and tries it out in that version', async () => {
    const p = await browser().open(t);
    const [spec] = await Promise.all([p.page.waitForResponse((r) => r.url().includes('/api/swagger.json')), p.goto('/api/docs/?api_version=2.0')]);
    expect(new URL(spec.url()).searchParams.get('api_version')).toBe('2.0');
    expect((await spec.json()).info.version).toMatch(/\(2\.0\)$/);
    await p.page.click('#operations-tag-tenancy');
    const op = p.page.locator('#operations-tenancy-tenancy_tenant_groups_list');
    await op.locator('.opblock-summary').click();
    expect(await p.page.locator('.info').first().textContent()).toContain('(2.0)');
    await authorize(p);
    await op.locator('button.try-out__btn').click();
    const [response] = await Promise.all([p.page.waitForResponse((r) => r.url().includes('/api/tenancy/tenant-groups/')), op.locator('button.execute').click()]);
    expect(response.status()).toBe(200);
    expect(response.headers()['api-version']).toBe('2.0');
    p.expectClean();
    await p.close();
  });

  it('renders every operation in ReDoc', async () => {
    const p = await browser().open(t);
    expect(await p.goto('/api/redoc/')).toBe(200);
    const create = p.page.locator('[data-section-id="tag/tenancy/operation/tenancy_tenants_create"]');
    await create.waitFor({ timeout: 60_000 });
    expect(await create.textContent()).toContain('Create one or more tenant objects');
    const doc = (await t.http.get('/api/swagger.json').expect(200)).body;
    const operations = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) => Object.values(item).filter((o) => o.operationId));
    expect(await p.page.locator('[data-section-id*="/operation/"]').count()).toBe(operations.length);
    await create.evaluate((e) => e.scrollIntoView());
    await screenshot(p.page, 'api-redoc');
    p.expectClean();
    await p.close();
  });
});
