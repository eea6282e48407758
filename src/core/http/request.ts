import type { Request } from 'express';
import type { Principal } from '../context';
import type { ExternalView } from './external';
import { BadRequestError, UnsupportedMediaTypeError, ValidationError } from '../resource/errors';
import { parseMultipart } from './multipart';
import { checkJsonDepth, jsonHasNul, NUL_MESSAGE } from '../resource/json-limits';

/**
 * What an HTML form of the browsable API asked for. Forms can only GET and POST; as DRF's
 * browsable API does, a form POSTs with `_method` (PUT, PATCH, DELETE or POST) and either the
 * raw content (`_content`, of `_content_type` JSON or CSV) or the generated form's fields.
 * The guard honours it only for a request authenticated by a browser session, and the session's
 * CSRF token (the form's `csrfmiddlewaretoken`) is then checked as for any unsafe method.
 */
export interface FormSubmission {
  /** The method the form asked for. */
  method: string;
  /** The form's `csrfmiddlewaretoken`. */
  csrf: string;
  /** The raw content as typed (`_content`), or null for the generated form. */
  content: string | null;
  /** The generated form's fields (name, value), in their order; null for raw content. */
  fields: [string, string][] | null;
}

/** What netkeel's middleware and guard attach to an Express request. */
export interface NkRequest extends Request {
  apiVersion?: string;
  principal?: Principal;
  rawBody?: Buffer;
  /** How the client sees this service (set by the pipeline middleware, first thing). */
  external?: ExternalView;
  /** The request's id (the change log's `request_id`): the client's `X-Request-ID` when it is a UUID, else a new one. */
  requestId?: string;
  /** A browsable-API form's submission (method override), set before routing; the guard honours it for sessions only. */
  form?: FormSubmission;
}

/**
 * Parses the request body by its Content-Type, lazily (after authentication, as the reference
 * does). JSON nested deeper than MAX_JSON_DEPTH is a 400, and so is a NUL character anywhere
 * (no database stores one in text) unless `nul` lets a caller report it field by field.
 * `multipart`: the endpoint also takes multipart/form-data (file uploads; `multipart.ts`).
 */
export function parseBody(req: NkRequest, allowCsv = true, nul: 'refuse' | 'pass' = 'refuse', multipart = false): unknown {
  // A generated form's fields: only a model's own list and detail read them (as a CSV row).
  if (req.form?.fields) throw new UnsupportedMediaTypeError('application/x-www-form-urlencoded');
  const raw = req.rawBody ?? Buffer.alloc(0);
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'text/csv' && allowCsv) {
    if (raw.includes(0)) throw new BadRequestError(NUL_MESSAGE);
    return { csv: raw };
  }
  if (type === 'multipart/form-data' && multipart) {
    const form = parseMultipart(raw, String(req.headers['content-type']));
    if (nul === 'refuse' && Object.values(form).some((v) => typeof v === 'string' && v.includes('\0'))) throw new BadRequestError(NUL_MESSAGE);
    return form;
  }
  if (raw.length === 0) return undefined;
  if (type === '' || type === 'application/json' || type.endsWith('+json')) {
    const text = raw.toString('utf8');
    if (!text.trim()) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new BadRequestError(`JSON parse error - ${(e as Error).message}`);
    }
    checkJsonDepth(value);
    if (nul === 'refuse' && jsonHasNul(text)) throw new BadRequestError(NUL_MESSAGE);
    return value;
  }
  throw new UnsupportedMediaTypeError(req.headers['content-type'] ?? '');
}

export function isCsvBody(body: unknown): body is { csv: Buffer } {
  return !!body && typeof body === 'object' && !Array.isArray(body) && Buffer.isBuffer((body as { csv?: unknown }).csv);
}

/**
 * The external URL of the application's root, without a trailing slash (origin and prefix as the
 * client sees them): every absolute URL in a response starts with it.
 */
export function baseUrl(req: Request): string {
  const ext = (req as NkRequest).external;
  return ext ? ext.origin + ext.prefix : `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/** The external path of an app-relative path (`/api/` -> `/netkeel/api/` under a prefix): redirects, cookie paths, links. */
export function externalPath(req: Request, path: string): string {
  return ((req as NkRequest).external?.prefix ?? '') + path;
}

export { ValidationError };
