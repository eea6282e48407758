import express, { Express, NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { indexRoutes } from './route-index';

/** A route's handler that answers with the route's name and the parameters it matched. */
const answer = (name: string) => (req: Request, res: Response) => {
  res.json({ name, params: req.params });
};

/** An app whose routes answer with their own name and parameters; `log` records the middleware that ran. */
function app(): { app: Express; log: string[] } {
  const a = express();
  const log: string[] = [];
  a.use((req, _res, next) => {
    log.push('first');
    next();
  });
  // Routes no key names: some can match a keyed request (parameters, a wildcard), some cannot (fewer segments, another literal).
  a.get('/api/ipam/:model/', answer('ipam-model'));
  a.get('/api/circuits/:model/:id/', answer('circuits-object'));
  a.get('/api/:app/:model/:id/changes/', answer('object-changes'));
  a.get('/api/dcim/locations/', answer('locations-list'));
  a.get('/api/dcim/locations/:id/', answer('locations-detail'));
  a.get('/api/:app/', answer('app-root'));
  a.get('/api/dcim/locations/:id/notes/', answer('locations-notes'));
  // next('route') leaves a route for the next one; next() goes on to the route's next handler.
  a.get('/api/ipam/prefixes/:id/', (req, _res, next) => (req.params.id === 'skip' ? next() : next('route')), answer('never'));
  a.get('/api/ipam/prefixes/:id/', answer('prefixes-detail'));
  a.get('/api/{*rest}', answer('catch-all'));
  a.use((req, _res, next) => {
    log.push('between');
    next();
  });
  a.get('/health/', answer('health'));
  a.get('/err/or/here/', () => {
    throw new Error('boom');
  });
  a.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ error: err.message });
  });
  return { app: a, log };
}

describe('indexRoutes', () => {
  const cases: [string, string, number, unknown][] = [
    ['GET', '/api/dcim/locations/', 200, { name: 'locations-list', params: {} }],
    ['GET', '/api/dcim/locations', 200, { name: 'locations-list', params: {} }],
    ['GET', '/API/DCIM/Locations/?limit=1', 200, { name: 'locations-list', params: {} }],
    ['GET', '/api/dcim/locations/abc/', 200, { name: 'locations-detail', params: { id: 'abc' } }],
    ['GET', '/api/dcim/locations/abc/notes/', 200, { name: 'locations-notes', params: { id: 'abc' } }],
    ['GET', '/api/dcim/', 200, { name: 'app-root', params: { app: 'dcim' } }],
    ['GET', '/api/ipam/prefixes/x/', 200, { name: 'prefixes-detail', params: { id: 'x' } }],
    ['GET', '/api/ipam/prefixes/skip/', 200, { name: 'never', params: { id: 'skip' } }],
    ['GET', '/api/dcim/locations/a/b/c/', 200, { name: 'catch-all', params: { rest: ['dcim', 'locations', 'a', 'b', 'c', ''] } }],
    ['GET', '/api/nope/nothing/here/', 200, { name: 'catch-all', params: { rest: ['nope', 'nothing', 'here', ''] } }],
    ['GET', '/api/dcim/loc%61tions/', 200, { name: 'catch-all', params: { rest: ['dcim', 'locations', ''] } }],
    ['GET', '/api/ipam/prefixes/', 200, { name: 'ipam-model', params: { model: 'prefixes' } }],
    ['GET', '/API/IPAM/Prefixes', 200, { name: 'ipam-model', params: { model: 'Prefixes' } }],
    ['GET', '/api/dcim/locations/abc/changes/', 200, { name: 'object-changes', params: { app: 'dcim', model: 'locations', id: 'abc' } }],
    ['GET', '/api/ipam/prefixes/x/changes/', 200, { name: 'object-changes', params: { app: 'ipam', model: 'prefixes', id: 'x' } }],
    ['GET', '/api/circuits/circuits/c1/', 200, { name: 'circuits-object', params: { model: 'circuits', id: 'c1' } }],
    ['GET', '/health/', 200, { name: 'health', params: {} }],
    ['GET', '/err/or/here/', 500, { error: 'boom' }],
    ['GET', '/elsewhere/', 404, undefined],
  ];

  it('answers every request as the router without the index does', async () => {
    const plain = app();
    const indexed = app();
    indexRoutes((indexed.app as unknown as { router: Parameters<typeof indexRoutes>[0] }).router);
    for (const [method, path, status, body] of cases) {
      for (const { app: a } of [plain, indexed]) {
        const res = await request(a)[method.toLowerCase() as 'get'](path);
        expect({ path, status: res.status, body: status === 404 ? undefined : res.body }).toEqual({ path, status, body });
      }
    }
    // The middleware keeps its place between the routes.
    expect(indexed.log).toEqual(plain.log);
    expect(indexed.log).toContain('between');
  });

  it('turns each run of routes into one layer and leaves middleware in place', () => {
    const { app: a } = app();
    const router = (a as unknown as { router: Parameters<typeof indexRoutes>[0] }).router;
    const before = router.stack.length;
    indexRoutes(router);
    // first, [10 routes], between, [2 routes], the error handler
    expect([before, router.stack.length]).toEqual([15, 5]);
  });

  it('lists the allowed methods of a path for OPTIONS as without the index', async () => {
    const build = () => {
      const a = express();
      a.get('/api/dcim/locations/', (_req, res) => res.end());
      a.post('/api/dcim/locations/', (_req, res) => res.end());
      a.get('/api/ipam/prefixes/', (_req, res) => res.end());
      return a;
    };
    const indexed = build();
    indexRoutes((indexed as unknown as { router: Parameters<typeof indexRoutes>[0] }).router);
    const [p, i] = [await request(build()).options('/api/dcim/locations/'), await request(indexed).options('/api/dcim/locations/')];
    expect([i.status, i.headers.allow]).toEqual([p.status, p.headers.allow]);
    expect(i.headers.allow).toBe('GET, HEAD, POST');
  });

  describe('with direct routes', () => {
    /** Nest's way: `all` routes without a trailing slash; one GET route registered before the detail route. */
    const build = () => {
      const a = express();
      a.all('/api/dcim/locations', answer('list'));
      a.get('/api/dcim/locations/special', answer('special'));
      a.all('/api/dcim/locations/:id', answer('detail'));
      a.all('/api/dcim/locations/:id/notes', answer('notes'));
      a.all('/api/ipam/prefixes/:id', answer('prefix'));
      // Named as direct, but taking GET only: another method is express's (here, on to the next route).
      a.get('/api/ipam/vlans/:id', answer('vlan'));
      a.all('/api/ipam/vlans/:id', answer('vlan-any'));
      return a;
    };
    /** A direct route answers as its route would, and says it was the one. */
    const direct = (name: string) => (req: Request, res: Response, _next: NextFunction, params: Record<string, string>) => {
      res.setHeader('X-Direct', 'yes');
      req.params = params;
      answer(name)(req, res);
    };
    const directs = new Map([
      ['/api/dcim/locations', direct('list')],
      ['/api/dcim/locations/:id', direct('detail')],
      ['/api/ipam/vlans/:id', direct('vlan')],
    ]);

    it('runs a direct route when its layer is the first to match, and leaves every other request to the router', async () => {
      const indexed = build();
      indexRoutes((indexed as unknown as { router: Parameters<typeof indexRoutes>[0] }).router, directs);
      const plain = build();
      const cases: [string, string, boolean][] = [
        ['GET', '/api/dcim/locations/', true],
        ['DELETE', '/API/DCIM/Locations?limit=1', true],
        ['GET', '/api/dcim/locations/abc/?depth=1', true],
        ['PATCH', '/api/dcim/locations/Ab.C~d/', true],
        ['GET', '/api/dcim/locations/a%2Fb%20c/', true],
        // An earlier route matches: the router answers, as it would.
        ['GET', '/api/dcim/locations/special/', false],
        // ... unless it does not take the method: express goes on to the detail route.
        ['POST', '/api/dcim/locations/special/', false],
        ['GET', '/api/dcim/locations/abc/notes/', false],
        ['GET', '/api/ipam/prefixes/abc/', false],
        ['GET', '/api/ipam/vlans/abc/', true],
        ['HEAD', '/api/ipam/vlans/abc/', true],
        ['POST', '/api/ipam/vlans/abc/', false],
        // A parameter that cannot be decoded: express's error, as without the index.
        ['GET', '/api/dcim/locations/%E0%A4%A/', false],
        ['GET', '/api/dcim/locations//', false],
        // Paths of more segments, empty ones, slashes doubled: tried by no pattern of another count.
        ['GET', '/api/dcim/locations/a/b/', false],
        ['GET', '/api/dcim/locations/abc//', false],
        ['GET', '/api/dcim/locations///', false],
        ['GET', '/api/dcim/locations/abc', true],
        ['GET', '/api/dcim/locations', true],
      ];
      for (const [method, path, isDirect] of cases) {
        const m = method.toLowerCase() as 'get';
        const [p, i] = [await request(plain)[m](path), await request(indexed)[m](path)];
        expect({ method, path, status: i.status, body: i.status === 200 ? i.body : undefined }).toEqual({
          method,
          path,
          status: p.status,
          body: p.status === 200 ? p.body : undefined,
        });
        expect({ method, path, direct: i.headers['x-direct'] === 'yes' }).toEqual({ method, path, direct: isDirect });
      }
    });
  });
});
