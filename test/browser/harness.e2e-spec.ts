import { ADMIN_PASSWORD, startApp, TestApp } from '../../src/core/testing/harness';
import { browserSuite, logIn } from '../support/browser';

/** The browser harness itself: what it reports is what the other browser suites rely on. */
browserSuite('browser harness', (browser) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite');
  });
  afterAll(() => t?.close());

  it('logs in through the form and sees a clean page', async () => {
    const p = await browser().open(t);
    await logIn(p, 'admin', ADMIN_PASSWORD);
    expect(new URL(p.page.url()).pathname).toBe('/api/');
    expect(await p.page.textContent('header')).toContain('admin');
    p.expectClean();
    await p.close();
  });

  it('collects console errors, page errors and CSP violations', async () => {
    const p = await browser().open(t);
    expect(await p.goto('/login/')).toBe(200);
    await p.page.evaluate('console.error("deliberate")');
    await p.page.evaluate('setTimeout(() => { throw new Error("uncaught") })');
    // The login page's CSP allows no script: an injected one is refused and reported.
    await p.page.evaluate(`(() => { const s = document.createElement('script'); s.textContent = '1'; document.body.appendChild(s); })()`);
    for (let i = 0; i < 100 && p.problems.length < 3; i++) await p.page.waitForTimeout(20);
    const text = p.problems.join('\n');
    expect(text).toMatch(/deliberate/);
    expect(text).toMatch(/page error: uncaught/);
    expect(text).toMatch(/violates the following Content Security Policy directive/);
    expect(() => p.expectClean()).toThrow();
    expect(p.problems).toEqual([]);
    await p.close();
  });
});
