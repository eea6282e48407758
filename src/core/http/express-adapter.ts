import * as http from 'node:http';
import { ExpressAdapter } from '@nestjs/platform-express';

/**
 * Nest's express adapter, whose HTTP server makes each request and response with express's
 * prototypes from the start.
 *
 * Express gives every request and response its own prototypes (`app.request`, `app.response`:
 * `req.query`, `res.status`, `res.json`...) with `Object.setPrototypeOf` as it takes them. Made
 * by Node as plain IncomingMessage and ServerResponse objects, they changed shape after Node's
 * HTTP code had touched them, so that code (parsing, finishing a response, freeing the socket)
 * saw two shapes of each and ran slower on every request than on a plain Node server. Made with
 * express's prototypes, express's `setPrototypeOf` changes nothing and each has one shape
 * throughout.
 */
export class NkExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: { httpsOptions?: unknown; return503OnClosing?: boolean; forceCloseConnections?: boolean }): void {
    // HTTPS, 503 on closing, tracked connections: not used by netkeel; Nest's own server then.
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) return super.initHttpServer(options as never);
    const app = this.getInstance() as { request: object; response: object };
    function Request(this: http.IncomingMessage, socket: unknown) {
      (http.IncomingMessage as unknown as (this: unknown, s: unknown) => void).call(this, socket);
    }
    Request.prototype = app.request;
    function Response(this: http.ServerResponse, req: unknown, opts: unknown) {
      (http.ServerResponse as unknown as (this: unknown, r: unknown, o: unknown) => void).call(this, req, opts);
    }
    Response.prototype = app.response;
    this.httpServer = http.createServer(
      { IncomingMessage: Request as unknown as typeof http.IncomingMessage, ServerResponse: Response as unknown as typeof http.ServerResponse },
      this.getInstance(),
    );
  }
}
