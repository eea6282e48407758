import type { Request } from 'express';
import type { Principal } from '../context';
import { BadRequestError, UnsupportedMediaTypeError, ValidationError } from '../resource/errors';

/** What netkeel's middleware and guard attach to an Express request. */
export interface NkRequest extends Request {
  apiVersion?: string;
  principal?: Principal;
  rawBody?: Buffer;
}

/** Parses the request body by its Content-Type, lazily (after authentication, as the reference does). */
export function parseBody(req: NkRequest, allowCsv = true): unknown {
  const raw = req.rawBody ?? Buffer.alloc(0);
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'text/csv' && allowCsv) return { csv: raw };
  if (raw.length === 0) return undefined;
  if (type === '' || type === 'application/json' || type.endsWith('+json')) {
    const text = raw.toString('utf8');
    if (!text.trim()) return undefined;
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new BadRequestError(`JSON parse error - ${(e as Error).message}`);
    }
  }
  throw new UnsupportedMediaTypeError(req.headers['content-type'] ?? '');
}

export function isCsvBody(body: unknown): body is { csv: Buffer } {
  return !!body && typeof body === 'object' && !Array.isArray(body) && Buffer.isBuffer((body as { csv?: unknown }).csv);
}

export function baseUrl(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

export { ValidationError };
