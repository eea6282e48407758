import { type HttpServer, StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import type { Settings } from '../../config/settings';
import type { Db } from '../../database/db';
import { ApiResponse } from './api-response';
import { apiPage, HTML_CSP } from './html';
import { negotiateFormat } from './negotiation';
import { baseUrl, externalPath, NkRequest } from './request';

/**
 * Writes what a handler returned: the status and headers it asked for (handlers never touch the
 * response), and JSON rendered as the browsable HTML page when a browser asks for text/html.
 *
 * It wraps the HTTP adapter's `reply`, through which Nest sends every handler's result, rather
 * than being an interceptor: a global interceptor puts every request through an rxjs pipeline
 * and an async-context binding, a measurable share of a small request's cost.
 */
export function installReply(adapter: HttpServer, settings: Settings, db: Db): void {
  const reply = adapter.reply.bind(adapter);
  adapter.reply = (res: Response, value: unknown, statusCode?: number) => {
    if (settings.EXPOSE_STATEMENT_COUNT) res.setHeader('X-Statement-Count', String(db.statements));
    let body = value;
    if (value instanceof ApiResponse) {
      res.status(value.status);
      for (const [k, v] of Object.entries(value.headers)) res.setHeader(k, v);
      body = value.body;
    }
    if (!(body instanceof StreamableFile) && !res.getHeader('Content-Type') && wantsHtml(res.req as NkRequest)) body = html(res.req as NkRequest, res, body);
    return reply(res, body, statusCode);
  };
}

function html(req: NkRequest, res: Response, body: unknown): string {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', HTML_CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  const headers: Record<string, string> = {};
  for (const h of ['Allow', 'API-Version', 'Vary']) {
    const v = res.getHeader(h);
    if (v !== undefined) headers[h] = String(v);
  }
  headers['Content-Type'] = 'application/json';
  return apiPage(body, {
    title: titleOf(req.path),
    method: req.method,
    path: externalPath(req, req.originalUrl),
    status: res.statusCode,
    origin: baseUrl(req),
    prefix: externalPath(req, ''),
    username: req.principal?.user?.username,
    csrf: (req as NkRequest & { csrf?: string }).csrf,
    headers,
  });
}

/** The browsable page only for browsers: an Accept that prefers text/html (or ?format=api). */
export function wantsHtml(req: NkRequest): boolean {
  try {
    return negotiateFormat(req.headers.accept, req.query?.format, true) === 'html';
  } catch {
    return false;
  }
}

function titleOf(path: string): string {
  const parts = path.split('/').filter(Boolean);
  const last = parts.filter((p) => !/^[0-9a-f-]{36}$/i.test(p)).pop() ?? 'api';
  const t = last === 'api' ? 'API Root' : last.replace(/-/g, ' ');
  return t.charAt(0).toUpperCase() + t.slice(1) + (parts.length && /^[0-9a-f-]{36}$/i.test(parts[parts.length - 1]) ? ' (detail)' : '');
}
