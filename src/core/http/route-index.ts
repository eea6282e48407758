import { Router as makeRouter } from 'express';
import type { NextFunction, Request, Response } from 'express';

/**
 * How many leading path segments key the index: `/api/<app>/<model>`, where the models' routes
 * part ways.
 */
const DEPTH = 3;

/** A path segment the index can key on: plain ASCII characters a route pattern takes literally. */
const LITERAL = /^[A-Za-z0-9._~-]+$/;

/** What the index needs of the `router` package's layers and routers (express 5). */
export interface Layer {
  handle?: unknown;
  route?: { path?: unknown; _handlesMethod?(method: string): boolean };
  /** The parameters of a path the layer matches, false when it does not; throws on a parameter that cannot be decoded. */
  match?(path: string): false | { params: Record<string, string> };
}
export interface Router {
  (req: Request, res: Response, next: NextFunction): void;
  stack: Layer[];
  caseSensitive?: boolean;
  strict?: boolean;
  use(fn: (req: Request, res: Response, next: NextFunction) => void): unknown;
}

/**
 * The key of a route's path: its first DEPTH segments, lower-cased (express matches paths
 * case-insensitively unless told otherwise), or null when one of them is not literal (a
 * parameter, a wildcard, an optional group) or the path has fewer.
 */
function routeKey(path: unknown, caseSensitive: boolean): string | null {
  if (typeof path !== 'string' || !path.startsWith('/')) return null;
  const segments = path.split('/', DEPTH + 1).slice(1);
  if (segments.length < DEPTH || !segments.every((s) => LITERAL.test(s))) return null;
  const key = segments.join('/');
  return caseSensitive ? key : key.toLowerCase();
}

/** A route path segment that is a parameter (`:id`): any one segment of a request's path. */
const PARAM = /^:[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The segments of a route path made of plain segments (literal text and parameters, each
 * matching one non-empty segment of a request's path), a trailing slash aside; undefined for any
 * other path (a wildcard, an optional group), which may match paths of any shape.
 */
function plainSegments(path: unknown): string[] | undefined {
  if (typeof path !== 'string' || !path.startsWith('/')) return undefined;
  const segments = path.replace(/(.)\/$/, '$1').split('/').slice(1);
  return segments.every((s) => LITERAL.test(s) || PARAM.test(s)) ? segments : undefined;
}

/**
 * Whether a route that no key names (fewer literal leading segments) can match a request whose
 * key is `key`. A path of plain segments matches only paths of as many segments, each literal
 * one the same: such a route with fewer than DEPTH segments, or whose leading literal segments
 * differ from the key's, cannot. Any other path may.
 */
function mayMatch(path: unknown, key: string, caseSensitive: boolean): boolean {
  const segments = plainSegments(path);
  if (!segments) return true;
  if (segments.length < DEPTH) return false;
  const wanted = key.split('/');
  return segments.slice(0, DEPTH).every((s, i) => PARAM.test(s) || (caseSensitive ? s : s.toLowerCase()) === wanted[i]);
}

/** How many segments a request's path has, a trailing slash aside: as many as `plainSegments` gives a route path that matches it. */
function requestSegments(path: string): number {
  let n = 0;
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  for (let i = 0; i < end; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

/** A path express's URL parsing leaves as it is (RFC 3986 path characters): no spaces, backslashes, fragments. */
const PLAIN_PATH = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/;

/** A request URL's path: what precedes its query. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/**
 * The key of a request's path, as the router will match it: null when the path has fewer than
 * DEPTH literal segments (no keyed route can match it), undefined when the request is not keyed
 * safely (an absolute-form URL, characters the URL parser rewrites): then every route is tried,
 * as without the index.
 */
function requestKey(path: string, caseSensitive: boolean): string | null | undefined {
  if (!PLAIN_PATH.test(path)) return undefined;
  const segments = path.split('/', DEPTH + 1).slice(1);
  if (segments.length < DEPTH) return null;
  for (const s of segments) if (!LITERAL.test(s)) return null;
  const key = segments.join('/');
  return caseSensitive ? key : key.toLowerCase();
}

/** A route the index runs itself when its layer is the first to match a request (direct-routes.ts), with the parameters matched. */
export type DirectRoute = (req: Request, res: Response, next: NextFunction, params: Record<string, string>) => void;

/**
 * What an index layer does first: runs the request's route and returns true when it is a direct
 * route (the first route of the request's key whose pattern matches, for the request's method).
 */
export type DirectDispatch = (req: Request, res: Response, next: NextFunction) => boolean;

/**
 * Indexes the routes of an express application's router by their first path segments.
 *
 * Express tries its routes one by one, a regular expression each, and yields to the event loop
 * every hundred: with every model's list, detail and action routes (over 1,600), a request for a
 * model registered late walked hundreds of routes and several event loop turns before its
 * handler ran, a cost per request that grew with every model added. Each run of consecutive
 * routes in the router's stack becomes one layer that hands the request to a router holding only
 * the routes that can match it: those whose first DEPTH segments are the request's, and those the
 * index cannot key (fewer literal segments) unless their path cannot match such a request
 * (`mayMatch`: 25 such routes, `/api/:app/` or `/login/`, were tried before every model's own:
 * a detail's routing went from 14 % to 9 % of its CPU), in their original order. Middleware
 * keeps its place between the runs, and every route is still matched by its own layer, so which
 * route answers, its parameters, errors and OPTIONS are as without the index. Routes added after
 * this call are appended after the index and tried as usual.
 *
 * `direct` names, by path, routes the index runs itself: when the first of a key's routes whose
 * pattern matches the request's path (each tried by its own layer, in the router's order, as
 * express tries them) is one of them, it is called with the parameters its layer matched, without
 * the second pass through express's router; otherwise, and for a path a layer cannot decode, the
 * key's router takes the request as before, as it does a request whose method the route does
 * not take (express would go on to the next route that matches). Returned: each index layer
 * with its direct dispatch, for a caller that runs the middleware before it itself
 * (NkExpressAdapter).
 */
export function indexRoutes(router: Router, direct: ReadonlyMap<string, DirectRoute> = new Map()): Map<Layer, DirectDispatch> {
  const dispatchers = new Map<Layer, DirectDispatch>();
  const opts = { caseSensitive: !!router.caseSensitive, strict: !!router.strict };
  const newRouter = () => makeRouter(opts) as unknown as Router;
  const subRouter = (layers: Layer[]) => {
    const r = newRouter();
    r.stack = layers;
    return r;
  };
  const dispatcher = (run: Layer[]): Layer => {
    const keys = run.map((l) => routeKey(l.route?.path, opts.caseSensitive));
    const byKey = new Map<string, Router>();
    for (const key of new Set(keys)) {
      if (key !== null) byKey.set(key, subRouter(run.filter((l, i) => keys[i] === key || (keys[i] === null && mayMatch(l.route?.path, key, opts.caseSensitive)))));
    }
    const unkeyed = subRouter(run.filter((_, i) => keys[i] === null));
    const all = subRouter(run);
    // The keys with a direct route: their routes in order, each with its direct function if it has one.
    // `segments`: a route whose path has a known count of segments is not tried on a request's
    // path of another (a pattern's match is the larger part of the index's time otherwise).
    const candidates = new Map<string, { layer: Layer; run?: DirectRoute; segments?: number }[]>();
    for (const [key, r] of byKey) {
      const layers = r.stack.map((layer) => ({
        layer,
        run: typeof layer.route?.path === 'string' ? direct.get(layer.route.path) : undefined,
        segments: plainSegments(layer.route?.path)?.length,
      }));
      if (layers.some((l) => l.run && l.layer.route?._handlesMethod) && layers.every((l) => l.layer.match)) candidates.set(key, layers);
    }
    // Runs the request's route when it is a direct one; false when the key's router is to take it.
    const dispatch: DirectDispatch = (req, res, next) => {
      const path = pathOf(req.url);
      const key = requestKey(path, opts.caseSensitive);
      const layers = key ? candidates.get(key) : undefined;
      if (!layers) return false;
      const segments = requestSegments(path);
      for (const { layer, run, segments: wanted } of layers) {
        if (wanted !== undefined && wanted !== segments) continue;
        let matched: false | { params: Record<string, string> };
        try {
          matched = layer.match!(path);
        } catch {
          return false; // a parameter that cannot be decoded: express answers it
        }
        if (!matched) continue;
        // Run only for a method its route takes: express skips a route for any other (to the next one that matches, or a 404).
        if (run && layer.route!._handlesMethod!(req.method)) {
          run(req, res, next, matched.params);
          return true;
        }
        return false;
      }
      return false;
    };
    const holder = newRouter();
    holder.use(function routeIndex(req: Request, res: Response, next: NextFunction) {
      if (dispatch(req, res, next)) return;
      const key = requestKey(pathOf(req.url), opts.caseSensitive);
      const target = key === undefined ? all : key === null ? unkeyed : (byKey.get(key) ?? unkeyed);
      target(req, res, next);
    });
    dispatchers.set(holder.stack[0], dispatch);
    return holder.stack[0];
  };
  const stack: Layer[] = [];
  let run: Layer[] = [];
  const flush = () => {
    if (run.length > 1) stack.push(dispatcher(run));
    else stack.push(...run);
    run = [];
  };
  for (const layer of router.stack) {
    if (layer.route) run.push(layer);
    else {
      flush();
      stack.push(layer);
    }
  }
  flush();
  router.stack = stack;
  return dispatchers;
}
