import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ADMIN_PASSWORD, ADMIN_TOKEN, startApp, TestApp } from '../../src/core/testing/harness';
import { testDatabases } from '../../src/database/test-servers';
import { freePort } from '../support/processes';

/**
 * netkeel behind a real nginx (deployment issue): nginx listens on loopback, terminates "TLS" (it
 * says `X-Forwarded-Proto: https`), passes the public host in `X-Forwarded-Host` and forwards two
 * sub-paths: `/netkeel/` as is (netkeel's BASE_PATH) and `/outer/netkeel/` with `/outer` stripped
 * and named in `X-Forwarded-Prefix`. Every URL a client gets back must be the public one.
 *
 * Needs the Debian package (`apt-get install nginx`; .ci/run installs it). Without /usr/sbin/nginx
 * jest.config.js leaves the suite out of the run with a note (test/deployment/reverse-proxy.e2e-spec.ts
 * covers the same behaviour with the headers sent directly), except under CI=true, where it runs
 * and fails.
 */
const NGINX = '/usr/sbin/nginx';
// Without nginx, jest.config.js leaves this suite out of the run (saying so), except under
// CI=true, where it runs and fails here.
if (!existsSync(NGINX)) {
  it('runs nginx (CI=true requires it)', () => {
    throw new Error(`${NGINX} is not installed: .ci/run installs Debian's nginx package (apt-get install nginx)`);
  });
}

const PUBLIC = 'netkeel.example.com';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const cookiesOf = (res: { headers: Record<string, unknown> }) => (res.headers['set-cookie'] as string[] | undefined) ?? [];
const pairs = (set: string[]) => set.map((c) => c.split(';')[0]).filter((c) => !c.endsWith('='));

function urlsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string' && /^https?:\/\//.test(v)) out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => urlsIn(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => urlsIn(x, out));
  return out;
}

async function waitForPort(port: number, child: ChildProcess, log: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${existsSync(log) ? readFileSync(log, 'utf8') : ''}`);
    const ok = await new Promise<boolean>((resolve) => {
      const c = createConnection(port, '127.0.0.1');
      c.once('connect', () => (c.end(), resolve(true)));
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('nginx did not start listening');
}

describe.each(testDatabases())('behind nginx on a sub-path with TLS terminated by the proxy [%s]', (kind) => {
  let t: TestApp;
  let nginx: ChildProcess | undefined;
  let dir: string;
  let proxy: string;
  let tenantId: string;

  beforeAll(async () => {
    t = await startApp(kind, { env: { BASE_PATH: '/netkeel', ALLOWED_HOSTS: PUBLIC } });
    const appPort = (t.app.getHttpServer().address() as { port: number }).port;
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'netkeel-nginx-'));
    for (const d of ['body', 'proxy']) mkdirSync(join(dir, d));
    const headers = `
      proxy_set_header Host 127.0.0.1:${appPort};
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Forwarded-Proto https;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header Forwarded "";`;
    const conf = `
${process.getuid?.() === 0 ? 'user root;' : ''}
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  server {
    listen 127.0.0.1:${port};
    server_name ${PUBLIC};
    location /netkeel/ {
      proxy_pass http://127.0.0.1:${appPort};${headers}
    }
    location /outer/netkeel/ {
      proxy_pass http://127.0.0.1:${appPort}/netkeel/;${headers}
      proxy_set_header X-Forwarded-Prefix /outer;
    }
  }
}`;
    writeFileSync(join(dir, 'nginx.conf'), conf);
    nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: 'ignore' });
    await waitForPort(port, nginx, join(dir, 'error.log'));
    proxy = `http://127.0.0.1:${port}`;
    const group = (await t.post('/netkeel/api/tenancy/tenant-groups/', { name: 'G' }).set('Host', PUBLIC).expect(201)).body;
    const tenants = (await t.post('/netkeel/api/tenancy/tenants/', [1, 2, 3].map((i) => ({ name: `T${i}`, tenant_group: group.id }))).set('Host', PUBLIC).expect(201)).body;
    tenantId = tenants[0].id;
    await t.post(`/netkeel/api/tenancy/tenants/${tenantId}/notes/`, { note: 'n' }).set('Host', PUBLIC).expect(201);
  });

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((r) => nginx!.once('exit', r));
      nginx.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  const get = (path: string, token: string | null = ADMIN_TOKEN) => {
    const r = request(proxy).get(path).set('Host', PUBLIC);
    return token ? r.set('Authorization', `Token ${token}`) : r;
  };

  for (const [label, prefix] of [
    ['as is, under BASE_PATH', '/netkeel'],
    ['with a prefix the proxy strips (X-Forwarded-Prefix)', '/outer/netkeel'],
  ] as const) {
    describe(label, () => {
      const base = `https://${PUBLIC}${prefix}`;

      it('gives the public URL in the root, list next/previous, detail, nested objects and notes', async () => {
        const root = (await get(`${prefix}/api/`).expect(200)).body;
        expect(root.tenancy).toBe(`${base}/api/tenancy/`);
        const list = (await get(`${prefix}/api/tenancy/tenants/?limit=1&offset=1&depth=1`).expect(200)).body;
        expect(list.next).toBe(`${base}/api/tenancy/tenants/?depth=1&limit=1&offset=2`);
        expect(list.previous).toBe(`${base}/api/tenancy/tenants/?depth=1&limit=1`);
        const detail = (await get(`${prefix}/api/tenancy/tenants/${tenantId}/`).expect(200)).body;
        expect(detail.url).toBe(`${base}/api/tenancy/tenants/${tenantId}/`);
        expect(detail.tenant_group.url.startsWith(`${base}/api/tenancy/tenant-groups/`)).toBe(true);
        const notes = (await get(`${prefix}/api/tenancy/tenants/${tenantId}/notes/`).expect(200)).body;
        expect(notes.count).toBe(1);
        for (const body of [root, list, detail, notes]) for (const u of urlsIn(body)) expect(u.startsWith(`${base}/api/`)).toBe(true);
        const csv = await get(`${prefix}/api/tenancy/tenants/?format=csv`).expect(200);
        expect(csv.headers['content-type']).toMatch(/^text\/csv/);
        expect(csv.text).not.toMatch(/127\.0\.0\.1/);
        // the trailing-slash redirect stays on the public path
        expect((await get(`${prefix}/api/tenancy/tenants?limit=1`).expect(302)).headers.location).toBe(`${prefix}/api/tenancy/tenants/?limit=1`);
        // the public URL, given back as a reference, is understood
        await request(proxy).post(`${prefix}/api/tenancy/tenants/`).set('Host', PUBLIC).set('Authorization', `Token ${ADMIN_TOKEN}`).send({ name: `by url ${prefix}`, tenant_group: detail.tenant_group.url }).expect(201);
      });

      it('logs in and out and renders the browsable API and the docs under the public path', async () => {
        const toLogin = await get(`${prefix}/api/dcim/`, null).set('Accept', BROWSER).expect(302);
        expect(toLogin.headers.location).toBe(`${prefix}/login/?next=${encodeURIComponent(`${prefix}/api/dcim/`)}`);
        const form = await get(toLogin.headers.location, null).expect(200);
        expect(form.text).toContain(`action="${prefix}/login/"`);
        expect(cookiesOf(form)[0]).toMatch(new RegExp(`Path=${prefix}/login/;.*Secure`));
        const token = /name="csrfmiddlewaretoken" value="([0-9a-f]+)"/.exec(form.text)![1];
        const login = await request(proxy)
          .post(`${prefix}/login/`)
          .set('Host', PUBLIC)
          .set('Cookie', pairs(cookiesOf(form)).join('; '))
          .type('form')
          .send({ csrfmiddlewaretoken: token, username: 'admin', password: ADMIN_PASSWORD, next: `${prefix}/api/dcim/` })
          .expect(303);
        expect(login.headers.location).toBe(`${prefix}/api/dcim/`);
        expect(cookiesOf(login).every((c) => c.includes(`Path=${prefix}/;`) && /Secure/.test(c))).toBe(true);
        const cookie = pairs(cookiesOf(login)).join('; ');
        const page = await get(`${prefix}/api/dcim/`, null).set('Accept', BROWSER).set('Cookie', cookie).expect(200);
        expect(page.text).toContain(`<a href="${base}/api/dcim/locations/">`);
        expect(page.text).toContain(`<a href="${prefix}/api/"><strong>netkeel</strong></a>`);
        expect(page.text).toContain(`action="${prefix}/logout/"`);
        const csrf = pairs(cookiesOf(login)).find((c) => c.startsWith('csrftoken='))!.split('=')[1];
        const logout = await request(proxy).post(`${prefix}/logout/`).set('Host', PUBLIC).set('Cookie', cookie).type('form').send({ csrfmiddlewaretoken: csrf }).expect(303);
        expect(logout.headers.location).toBe(`${prefix}/login/`);
        const docs = await get(`${prefix}/api/docs/`, null).expect(200);
        expect(docs.text).toContain(`src="${prefix}/api/docs/static/swagger-ui-bundle.js"`);
        expect(docs.text).toContain(`data-url="${prefix}/api/swagger.json?api_version=2.4"`);
        await get(`${prefix}/api/docs/static/swagger-ui-bundle.js`, null).expect(200);
        const doc = JSON.parse((await get(`${prefix}/api/swagger.json`, null).expect(200)).text);
        expect(doc.servers).toEqual([{ url: base }]);
      });
    });
  }

  it('refuses a public host that ALLOWED_HOSTS does not name, whatever nginx is asked for', async () => {
    await request(proxy).get('/netkeel/api/').set('Host', 'evil.example').set('Authorization', `Token ${ADMIN_TOKEN}`).expect(400);
  });
});
