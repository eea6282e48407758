import * as http from 'node:http';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { PIPELINE_DONE } from './pipeline.middleware';
import type { DirectDispatch, Layer, Router } from './route-index';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

interface ExpressApp {
  (req: http.IncomingMessage, res: http.ServerResponse): void;
  request: object;
  response: object;
  router: Router;
  route(path: string): { all(handler: unknown): unknown };
}

/**
 * Nest's express adapter, with an HTTP server that makes each request and response with
 * express's prototypes from the start and runs the generated resource routes without express's
 * router pass.
 *
 * Express gives every request and response its own prototypes (`app.request`, `app.response`:
 * `req.query`, `res.status`, `res.json`...) with `Object.setPrototypeOf` as it takes them. Made
 * by Node as plain IncomingMessage and ServerResponse objects, they changed shape after Node's
 * HTTP code had touched them, so that code (parsing, finishing a response, freeing the socket)
 * and the garbage collector did more on every request than on a plain Node server. Made with
 * express's prototypes, express's `setPrototypeOf` changes nothing and each has one shape
 * throughout.
 *
 * Once the routes are indexed (`dispatchDirectly`), a request goes to express only if the route
 * index does not run it itself: the adapter does what express's application and router would do
 * before the index's layer (the circular references, the locals, the original URL), runs the
 * pipeline middleware and asks the index for a direct route (route-index.ts, direct-routes.ts).
 * Anything else (another route, the pipeline's error) goes through express as before, the
 * pipeline not run twice (PIPELINE_DONE). So which code answers a request is as without it.
 */
export class NkExpressAdapter extends ExpressAdapter {
  /** Nest's first middleware (its request and response hooks, none set by netkeel). */
  private readonly hooksLayer: Layer | undefined;
  private direct?: { pipeline: Middleware; dispatch: DirectDispatch };
  /** Whether Nest's request or response hook was set (they run in Nest's first middleware: express's path then). */
  private hooked = false;

  constructor() {
    super();
    const stack = (this.getInstance() as ExpressApp).router.stack;
    this.hooksLayer = stack[stack.length - 1];
  }

  override initHttpServer(options: { httpsOptions?: unknown; return503OnClosing?: boolean; forceCloseConnections?: boolean }): void {
    // HTTPS, 503 on closing, tracked connections: not used by netkeel; Nest's own server then.
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) return super.initHttpServer(options as never);
    const app = this.getInstance() as ExpressApp;
    // Node's constructors are plain functions: called on an object of express's prototype.
    function ExpressRequest(this: http.IncomingMessage, socket: unknown) {
      (http.IncomingMessage as unknown as (this: unknown, s: unknown) => void).call(this, socket);
    }
    ExpressRequest.prototype = app.request;
    function ExpressResponse(this: http.ServerResponse, req: unknown, opts: unknown) {
      (http.ServerResponse as unknown as (this: unknown, r: unknown, o: unknown) => void).call(this, req, opts);
    }
    ExpressResponse.prototype = app.response;
    this.httpServer = http.createServer(
      { IncomingMessage: ExpressRequest as unknown as typeof http.IncomingMessage, ServerResponse: ExpressResponse as unknown as typeof http.ServerResponse },
      (req, res) => this.handle(req as Request, res as unknown as Response),
    );
  }

  /**
   * Runs the pipeline and the route index's direct routes ahead of express, when express's stack
   * starts as netkeel builds it: Nest's hooks, the pipeline, the index (`dispatchers`, from
   * `indexRoutes`). False (and nothing changed) otherwise.
   */
  dispatchDirectly(pipeline: Middleware, dispatchers: ReadonlyMap<Layer, DirectDispatch>): boolean {
    const [hooks, first, index] = (this.getInstance() as ExpressApp).router.stack;
    const dispatch = index && dispatchers.get(index);
    if (!this.hooksLayer || hooks !== this.hooksLayer || first?.handle !== pipeline || !dispatch) return false;
    this.direct = { pipeline, dispatch };
    return true;
  }

  /** Whether requests are run by `dispatchDirectly`'s path now. */
  get dispatchesDirectly(): boolean {
    return this.direct !== undefined && !this.hooked;
  }

  /**
   * A route for every method (`@All`: the list and detail routes of every generated controller)
   * as one layer. Express's `app.all` adds its handler once per method Node knows (35 on Node
   * 20), a layer each with its own pattern and matcher: 9,400 layers for the generated routes,
   * ~4 MB of the heap kept for the process's life. The router's `route.all` takes every method in
   * one layer: the same requests reach the handler (Node's HTTP parser knows no other methods),
   * and express's automatic OPTIONS and 404 stay out of it as before (the route handles every
   * method either way).
   */
  override all(...args: unknown[]): unknown {
    const [path, handler] = args;
    if (args.length !== 2 || typeof path !== 'string' || typeof handler !== 'function') return super.all(...(args as [never, never]));
    (this.getInstance() as ExpressApp).route(path).all(handler);
    return this;
  }

  override setOnRequestHook(hook: Parameters<ExpressAdapter['setOnRequestHook']>[0]): void {
    this.hooked = true;
    super.setOnRequestHook(hook);
  }

  override setOnResponseHook(hook: Parameters<ExpressAdapter['setOnResponseHook']>[0]): void {
    this.hooked = true;
    super.setOnResponseHook(hook);
  }

  private handle(req: Request, res: Response): void {
    const app = this.getInstance() as ExpressApp;
    const direct = this.direct;
    if (!direct || this.hooked) return app(req, res);
    // What express's application and router set before their first middleware.
    req.res = res;
    res.req = req;
    if (!res.locals) res.locals = Object.create(null);
    req.baseUrl = '';
    req.originalUrl = req.url;
    let passed = false;
    // Through express: every other route, and the pipeline's error to express's error handling.
    const viaExpress = (err?: unknown) => {
      (req as { [PIPELINE_DONE]?: unknown })[PIPELINE_DONE] = err || true;
      app(req, res);
    };
    const next: NextFunction = (err?: unknown) => {
      passed = true;
      if (err || !direct.dispatch(req, res, viaExpress)) viaExpress(err);
    };
    try {
      direct.pipeline(req, res, next);
    } catch (e) {
      if (passed) throw e;
      viaExpress(e);
    }
  }
}
