import { type HttpServer, StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import type { Settings } from '../../config/settings';
import type { Db } from '../../database/db';
import { ApiResponse } from './api-response';
import type { BrowsableApi } from './browsable';
import { HTML_CSP } from './html';
import { negotiateFormat } from './negotiation';
import { externalPath, NkRequest } from './request';

/**
 * Writes what a handler returned: the status and headers it asked for (handlers never touch the
 * response), and JSON rendered as the browsable HTML page when a browser asks for text/html.
 *
 * It wraps the HTTP adapter's `reply`, through which Nest sends every handler's result, rather
 * than being an interceptor: a global interceptor puts every request through an rxjs pipeline
 * and an async-context binding, a measurable share of a small request's cost.
 */
export function installReply(adapter: HttpServer, settings: Settings, db: Db, browsable: BrowsableApi): void {
  const reply = adapter.reply.bind(adapter);
  adapter.reply = (res: Response, value: unknown, statusCode?: number) => {
    if (settings.EXPOSE_STATEMENT_COUNT) res.setHeader('X-Statement-Count', String(db.statements));
    let body = value;
    if (value instanceof ApiResponse) {
      res.status(value.status);
      for (const [k, v] of Object.entries(value.headers)) res.setHeader(k, v);
      body = value.body;
    }
    if (body instanceof StreamableFile || res.getHeader('Content-Type') || !wantsHtml(res.req as NkRequest)) return reply(res, body, statusCode);
    const req = res.req as NkRequest;
    // A browsable-API form that deleted its object: on to the list (a 204 leaves the browser on the deleted object's page).
    if (req.form && res.statusCode === 204) {
      res.status(303).setHeader('Location', externalPath(req, req.path.replace(/[^/]+\/$/, '')));
      return reply(res, '', 303);
    }
    return browsable.render(req, res, body).then((html) => {
      htmlHeaders(res);
      return reply(res, html, statusCode);
    });
  };
}

/** The headers of every browsable page. */
export function htmlHeaders(res: Response): void {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', HTML_CSP);
  res.setHeader('X-Frame-Options', 'DENY');
}

/**
 * The browsable page only for browsers: an Accept that prefers text/html (or ?format=api). A
 * `?format=` no one serves is answered (406) by the Accept header alone: a browser gets a page.
 */
export function wantsHtml(req: NkRequest): boolean {
  try {
    return negotiateFormat(req.headers.accept, req.query?.format, true) === 'html';
  } catch {
    try {
      return negotiateFormat(req.headers.accept, undefined, true) === 'html';
    } catch {
      return false;
    }
  }
}
