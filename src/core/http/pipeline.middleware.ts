import { randomUUID } from 'node:crypto';
import type { NextFunction, Response } from 'express';
import { HttpResult } from '../resource/errors';
import { NUL_MESSAGE } from '../resource/json-limits';
import type { NkRequest } from './request';
import { negotiateVersion } from './versioning';
import { externalView, ForwardedHeaderError, trustTest } from './external';
import { applyFormSubmission, isApiFormPost } from './method-override';

export interface PipelineOptions {
  maxBodySize: number;
  allowedHosts?: string[];
  /** TRUST_PROXY entries. */
  trustProxy?: string[];
  /** Normalized BASE_PATH. */
  basePath?: string;
}

/**
 * On a request the pipeline has already run for (NkExpressAdapter runs it before express): true,
 * or the error it passed on. Express's own pass then goes on as the pipeline did.
 */
export const PIPELINE_DONE = Symbol('netkeel.pipelineDone');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Liveness and readiness probes: answered whatever the Host (a container's probe uses its own address); they carry no URL. */
const PROBES = new Set(['/health/', '/health', '/ready/', '/ready']);

/**
 * Runs before routing for every request: the external view of the request (proxy headers from
 * trusted proxies only, BASE_PATH stripped from the URL), the security headers, the Host check,
 * the trailing-slash redirect (302, query kept), API version negotiation (the API-Version header
 * on every response after it), reading the raw body within the size limit and a browsable-API
 * form's method override (`method-override.ts`). Errors are
 * answered in the same JSON shape as the exception filter.
 */
export function pipelineMiddleware(opts: PipelineOptions) {
  const { maxBodySize } = opts;
  const hostAllowed = hostCheck(opts.allowedHosts ?? ['*']);
  const basePath = opts.basePath ?? '';
  const trusted = trustTest(opts.trustProxy ?? ['loopback']);
  return (req: NkRequest, res: Response, next: NextFunction) => {
    const done = (req as { [PIPELINE_DONE]?: unknown })[PIPELINE_DONE];
    if (done !== undefined) return next(done === true ? undefined : done);
    // No response is to be sniffed into another type or framed; API answers (a new token's key,
    // objects a user may see) are not to be kept by any cache. The documentation's files may be.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'same-origin');
    // One id per request, shown back to the client: every change record the request writes carries it.
    const given = req.headers['x-request-id'];
    req.requestId = typeof given === 'string' && UUID.test(given.trim()) ? given.trim().toLowerCase() : randomUUID();
    res.setHeader('X-Request-ID', req.requestId);
    try {
      req.external = externalView(req, { trusted, basePath }, (req.socket as { encrypted?: boolean }).encrypted === true);
    } catch (e) {
      if (!(e instanceof ForwardedHeaderError)) throw e;
      res.setHeader('Cache-Control', 'no-store');
      res.status(400).json({ detail: e.message });
      return;
    }
    const ext = req.external;
    // Every route lives under BASE_PATH; inside, paths are app-relative.
    if (basePath) {
      const u = req.url;
      const rest = u.startsWith(basePath) ? u.slice(basePath.length) : null;
      if (rest === null || (rest !== '' && rest[0] !== '/' && rest[0] !== '?')) {
        res.setHeader('Cache-Control', 'no-store');
        res.status(404).json({ detail: 'Not found.' });
        return;
      }
      if (rest === '' || rest[0] === '?') {
        res.setHeader('Cache-Control', 'no-store');
        res.redirect(302, `${ext.prefix}/${rest}`);
        return;
      }
      req.url = rest;
      req.originalUrl = rest;
    }
    const url = req.originalUrl;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (!isStaticAsset(path)) res.setHeader('Cache-Control', 'no-store');
    // URLs in responses are built from the host the client used: only names this service answers to.
    if (!hostAllowed(ext.host) && !PROBES.has(path)) {
      res.status(400).json({ detail: `Invalid HTTP_HOST header: ${JSON.stringify(ext.host.slice(0, 255))}. You may need to add it to ALLOWED_HOSTS.` });
      return;
    }
    // No database stores a NUL in text: refused here, before it can reach a filter or a lookup.
    if (/%00/.test(url)) {
      res.status(400).json({ detail: NUL_MESSAGE });
      return;
    }
    if ((path === '/api' || path.startsWith('/api/')) && !path.endsWith('/') && !isStaticAsset(path)) {
      res.redirect(302, `${ext.prefix}${path}/${q === -1 ? '' : url.slice(q)}`);
      return;
    }
    res.setHeader('Vary', 'Accept');
    try {
      req.apiVersion = negotiateVersion(req.headers.accept, req.query);
    } catch (e) {
      const r = e as HttpResult;
      res.status(r.status).json(r.body);
      return;
    }
    res.setHeader('API-Version', req.apiVersion);
    // A browsable-API form (a form POST under /api/): the request it stands for, before routing.
    if (isApiFormPost(req, path)) {
      readBody(req, res, () => {
        try {
          applyFormSubmission(req);
        } catch (e) {
          res.status(400).json({ detail: (e as Error).message });
          return;
        }
        next();
      }, maxBodySize);
      return;
    }
    readBody(req, res, next, maxBodySize);
  };
}

/**
 * ALLOWED_HOSTS as Django reads it: exact names (case-insensitive, any port), `.example.com`
 * for the domain and its subdomains, `*` for any syntactically valid host.
 */
export function hostCheck(allowed: string[]): (host: string) => boolean {
  const any = allowed.includes('*');
  const names = allowed.filter((a) => a !== '*').map((a) => a.toLowerCase());
  return (hostHeader) => {
    const m = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:\d{1,5})?$/i.exec(hostHeader);
    if (!m) return false;
    if (any) return true;
    const name = m[1].toLowerCase().replace(/\.$/, '');
    return names.some((a) => (a.startsWith('.') ? name === a.slice(1) || name.endsWith(a) : name === a));
  };
}

/** Files (the OpenAPI document, the documentation pages' scripts) are not API resources and take no slash. */
function isStaticAsset(path: string): boolean {
  return /\.[a-z0-9]+$/i.test(path.slice(path.lastIndexOf('/') + 1));
}

function readBody(req: NkRequest, res: Response, next: NextFunction, limit: number): void {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') {
    // No body is read: let it flow (away) now. Left unread, Node dumps it when the response
    // has been written and then has to wait for its end with a listener, on every request.
    req.resume();
    return next();
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    res.status(413).json({ detail: `Request body is larger than the limit of ${limit} bytes.` });
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  req.on('data', (c: Buffer) => {
    if (failed) return;
    size += c.length;
    if (size > limit) {
      failed = true;
      res.status(413).json({ detail: `Request body is larger than the limit of ${limit} bytes.` });
      req.resume();
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (failed) return;
    req.rawBody = Buffer.concat(chunks);
    next();
  });
  req.on('error', (err) => {
    if (!failed) next(err);
  });
}
