import { existsSync, mkdirSync } from 'node:fs';
import { REPO_ROOT } from '../../src/core/testing/repo-root';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestApp } from '../../src/core/testing/harness';

/**
 * The browser suites' harness: Debian's Chromium (`apt-get install chromium`, which `.ci/run`
 * does when it is missing) driven by playwright-core, which downloads no browser of its own.
 *
 *   browserSuite('the browsable API', (browser) => {
 *     let t: TestApp;
 *     beforeAll(async () => { t = await startApp('pglite'); });
 *     afterAll(() => t.close());
 *     it('shows a list', async () => {
 *       const p = await browser().open(t);              // a fresh profile: no cookies
 *       await logIn(p, 'admin', ADMIN_PASSWORD);
 *       await p.goto('/api/dcim/locations/');
 *       await screenshot(p.page, 'locations');         // docs/images/locations.png (UPDATE_SCREENSHOTS=1)
 *       p.expectClean();                               // no console error, CSP violation or page error
 *       await p.close();
 *     });
 *   });
 *
 * One browser per suite (launched in beforeAll, closed in afterAll, never left running); each
 * `open` is a new browser context, so pages of one test share cookies and tests share none.
 * Without Chromium jest.config.js leaves the browser suites out of the run with a message,
 * except under CI=true, where they run and fail.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Flags that work on this closed network: without the background-networking ones Chromium's own
 * connections (updates, sync, field trials) are refused and slow every start. Playwright adds
 * `--headless` and a new empty `--user-data-dir` (removed when the browser closes).
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Screenshots go to docs/images/ (the README shows them) when UPDATE_SCREENSHOTS=1. */
export const SCREENSHOT_DIR = join(REPO_ROOT, 'docs', 'images');
const VIEWPORT = { width: 1100, height: 760 };

/**
 * A page whose problems are collected: console errors and warnings (Chromium reports every CSP
 * violation there), uncaught errors, failed requests and sub-resources answered with an error.
 */
export interface CheckedPage {
  page: Page;
  context: BrowserContext;
  /** The app's root URL (`http://127.0.0.1:<port>`): `goto` takes paths under it. */
  base: string;
  /** What went wrong on the page so far, one line each. */
  problems: string[];
  /** Navigates to a path of the app (or an absolute URL) and returns the response's status. */
  goto(path: string): Promise<number>;
  /** Fails the test with the problems collected since the last call (then forgets them). */
  expectClean(): void;
  close(): Promise<void>;
}

export interface BrowserHarness {
  browser: Browser;
  /** A new page in a new browser context (no cookies) on the app's server. */
  open(app: TestApp | string): Promise<CheckedPage>;
}

/** The origin a test app listens on. */
export function originOf(app: TestApp): string {
  const addr = app.app.getHttpServer().address() as AddressInfo;
  return `http://127.0.0.1:${addr.port}`;
}

async function openPage(browser: Browser, app: TestApp | string): Promise<CheckedPage> {
  const base = typeof app === 'string' ? app : originOf(app);
  const context = await browser.newContext({ viewport: VIEWPORT, baseURL: base });
  // A missing element fails the test in seconds, not at the suite's timeout.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error' && m.type() !== 'warning') return;
    const text = m.text();
    // The document's own status (a 404 page a test asked for) is not a problem of the page.
    if (/^Failed to load resource: the server responded with a status of/.test(text) && m.location().url === page.url()) return;
    problems.push(`console ${m.type()}: ${text} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400 && r.request().resourceType() !== 'document' && r.request().resourceType() !== 'fetch' && r.request().resourceType() !== 'xhr') {
      problems.push(`${r.request().resourceType()} ${r.url()} answered ${r.status()}`);
    }
  });
  return {
    page,
    context,
    base,
    problems,
    async goto(path) {
      const res = await page.goto(path.startsWith('http') ? path : base + path);
      return res?.status() ?? 0;
    },
    expectClean() {
      const found = problems.splice(0);
      expect(found).toEqual([]);
    },
    close: () => context.close(),
  };
}

/**
 * A `describe` block with one Chromium for its tests. Without the browser, jest.config.js leaves
 * the browser suites out of the run (saying how to install it), except under CI=true, where
 * they run here and fail.
 */
export function browserSuite(name: string, body: (browser: () => BrowserHarness) => void): void {
  if (!existsSync(CHROMIUM)) {
    describe(name, () => {
      it('has a browser to run in', () => {
        throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium) or set CHROMIUM_PATH`);
      });
    });
    return;
  }
  describe(name, () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    });
    afterAll(async () => {
      await browser?.close();
    });
    body(() => {
      if (!browser) throw new Error('browser not started');
      const b = browser;
      return { browser: b, open: (app) => openPage(b, app) };
    });
  });
}

/** Logs in through the login form, as a person would; the page is left where login sends it. */
export async function logIn(p: CheckedPage, username: string, password: string, next = '/api/'): Promise<void> {
  await p.goto(`/login/?next=${encodeURIComponent(next)}`);
  await p.page.fill('input[name="username"]', username);
  await p.page.fill('input[name="password"]', password);
  await Promise.all([p.page.waitForURL((u) => !u.pathname.startsWith('/login/')), p.page.click('form button:has-text("Log in")')]);
}

/**
 * Writes a screenshot of the page's viewport to `docs/images/<name>.png` when UPDATE_SCREENSHOTS=1
 * (they are committed; a run without it leaves the work tree alone and costs nothing).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}
