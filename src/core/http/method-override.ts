import { BadRequestError } from '../resource/errors';
import type { NkRequest } from './request';

/* What a browsable-API form asks for is `FormSubmission` (request.ts, with the request it rides on). */

const METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const CONTENT_TYPES = new Set(['application/json', 'text/csv']);
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A form POST to the API (`/api/...` with a form body): the only requests `applyFormSubmission` looks into. */
export function isApiFormPost(req: NkRequest, path: string): boolean {
  return req.method === 'POST' && (path === '/api/' || path.startsWith('/api/')) && (req.headers['content-type'] ?? '').toLowerCase().startsWith(FORM_TYPE);
}

/**
 * Turns a browsable-API form POST into the request it stands for, before routing: the method
 * from `_method`, the body from `_content` (with its content type), or the generated form's
 * fields kept in `req.form` for the resource's own parsing. A bad override is a 400. A form body
 * that is not a browsable form (none of `csrfmiddlewaretoken`, `_method`, `_content`: `curl -d ''`)
 * is left as it is.
 */
export function applyFormSubmission(req: NkRequest): void {
  const form = new URLSearchParams(req.rawBody?.toString('utf8') ?? '');
  if (!form.has('csrfmiddlewaretoken') && !form.has('_method') && !form.has('_content')) return;
  const method = (form.get('_method') ?? 'POST').toUpperCase();
  if (!METHODS.has(method)) throw new BadRequestError(`_method must be one of ${[...METHODS].join(', ')}.`);
  const content = form.get('_content');
  const csrf = form.get('csrfmiddlewaretoken') ?? '';
  if (content !== null) {
    const type = (form.get('_content_type') || 'application/json').toLowerCase();
    if (!CONTENT_TYPES.has(type)) throw new BadRequestError(`_content_type must be one of ${[...CONTENT_TYPES].join(', ')}.`);
    req.rawBody = Buffer.from(content, 'utf8');
    req.headers['content-type'] = type;
    req.form = { method, csrf, content, fields: null };
  } else {
    const fields = [...form].filter(([k]) => !k.startsWith('_') && k !== 'csrfmiddlewaretoken');
    req.rawBody = Buffer.alloc(0);
    delete req.headers['content-type'];
    req.form = { method, csrf, content: null, fields };
  }
  req.headers['content-length'] = String(req.rawBody.length);
  req.method = method;
}
