import { randomUUID } from 'node:crypto';
import { AuthGuard } from '../../src/core/auth/auth.guard';
import { listPath } from '../../src/core/resource/definition';
import { ResourceRegistry } from '../../src/core/resource/registry';
import { startApp, TestApp } from '../../src/core/testing/harness';
import request from 'supertest';
import { NkExpressAdapter } from '../../src/core/http/express-adapter';

/**
 * Every model's list and detail URL is run by the route index itself (core/http/direct-routes.ts),
 * not through Nest's per-request route machinery, whose only caller of the guard is
 * `canActivate`: what the generated routes answer is what every other suite checks. Routing does
 * not depend on the database: one is enough.
 */
describe('direct routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite');
  });
  afterAll(() => t?.close());

  it("answers every model's list and detail URL without Nest's guard call, and the special endpoints through it", async () => {
    const spy = jest.spyOn(t.app.get(AuthGuard), 'canActivate');
    const defs = t.app.get(ResourceRegistry).all();
    expect(defs.length).toBeGreaterThan(100);
    for (const def of defs) {
      const list = await t.http.options(listPath(def)).set('Authorization', `Token ${t.token}`);
      expect({ url: listPath(def), status: list.status, allow: list.headers.allow, version: list.headers['api-version'] }).toEqual({
        url: listPath(def),
        status: 200,
        allow: expect.stringContaining('OPTIONS'),
        version: '2.4',
      });
      const missing = `${listPath(def)}${randomUUID()}/`;
      const detail = await t.get(missing);
      // A route's own error carries its Allow header (the guard's would not).
      expect({ url: missing, status: detail.status, body: detail.body, allow: detail.headers.allow }).toEqual({
        url: missing,
        status: 404,
        body: expect.objectContaining({ detail: expect.any(String) }),
        allow: expect.stringContaining('OPTIONS'),
      });
    }
    expect(spy).not.toHaveBeenCalled();
    await t.get('/api/status/').expect(200);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });

  it("makes each request and response with express's prototypes, so express does not change them as it takes them", async () => {
    const server = t.app.getHttpServer() as import('node:http').Server;
    const express = t.app.getHttpAdapter().getInstance() as { request: object; response: object };
    const seen: object[] = [];
    const listener = (req: object, res: object) => seen.push(Object.getPrototypeOf(req), Object.getPrototypeOf(res));
    server.prependListener('request', listener);
    try {
      await t.get('/api/dcim/locations/').expect(200);
    } finally {
      server.removeListener('request', listener);
    }
    expect(seen).toHaveLength(2);
    expect(seen[0] === express.request && seen[1] === express.response).toBe(true);
  });

  it('holds a route for every method (`@All`: every generated list and detail route) in one layer that every method reaches', async () => {
    const adapter = new NkExpressAdapter();
    const seen: string[] = [];
    adapter.all('/every-method/', (req: { method: string }, res: { end: (s: string) => void }) => {
      seen.push(req.method);
      res.end('ok');
    });
    const express = adapter.getInstance() as { router: { stack: { route?: { path: string; stack: unknown[] } }[] } };
    const route = express.router.stack.find((l) => l.route?.path === '/every-method/')?.route;
    expect(route?.stack).toHaveLength(1); // express's app.all: one per method Node knows (35 on Node 20)
    const http = request(express as never);
    for (const m of ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'propfind'] as const) await http[m]('/every-method/').expect(200);
    expect(seen).toEqual(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND']);
    // A method no generated route's handler names is answered as before: not found (the guard).
    expect((await t.http.propfind('/api/dcim/locations/').set('Authorization', `Token ${t.token}`).expect(404)).body).toEqual({ detail: 'Not found.' });
  });

  it("runs them ahead of express's router, and every other request through it", async () => {
    expect((t.app.getHttpAdapter() as NkExpressAdapter).dispatchesDirectly).toBe(true);
    const express = t.app.getHttpAdapter().getInstance() as { handle: (...args: unknown[]) => unknown };
    const spy = jest.spyOn(express, 'handle');
    try {
      await t.get('/api/dcim/locations/').expect(200);
      await t.get(`/api/dcim/locations/${randomUUID()}/`).expect(404);
      await t.http.head('/api/dcim/locations/').set('Authorization', `Token ${t.token}`).expect(200);
      expect(spy).not.toHaveBeenCalled();
      await t.get('/api/status/').expect(200);
      // A model's other routes; the pipeline's own answer (a redirect to the slash) never reaches a router.
      await t.get(`/api/dcim/locations/${randomUUID()}/notes/`).expect(404);
      await t.get('/api/dcim/locations').expect(302);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });
});
