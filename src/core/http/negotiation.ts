import { NotAcceptableError } from '../resource/errors';

export type Format = 'json' | 'csv' | 'html';

/** Chooses the response format from ?format= and the Accept header. */
export function negotiateFormat(accept: string | undefined, format: unknown, html: boolean): Format {
  const f = Array.isArray(format) ? format[0] : format;
  if (f !== undefined) {
    const s = String(f).toLowerCase();
    if (s === 'json') return 'json';
    if (s === 'csv') return 'csv';
    if (s === 'api' && html) return 'html';
    throw new NotAcceptableError();
  }
  if (!accept) return 'json';
  const ranges = accept
    .split(',')
    .map((p, i) => {
      const [type, ...params] = p.split(';').map((s) => s.trim().toLowerCase());
      const qp = params.find((x) => x.startsWith('q='));
      return { type, q: qp ? Number(qp.slice(2)) : 1, i };
    })
    .filter((r) => r.type && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranges) {
    if (r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*') return 'json';
    if (r.type === 'text/csv') return 'csv';
    if (r.type === 'text/html' && html) return 'html';
    if (r.type === 'text/*') return html ? 'html' : 'csv';
  }
  if (!ranges.length) return 'json';
  throw new NotAcceptableError();
}

/**
 * Whether a request asks for CSV (`?format=csv` or `Accept: text/csv`); 406 for a format no one
 * serves. HTML counts as served (the reply renders it), so `Accept: text/html` alone is no 406.
 */
export function wantsCsv(req: { headers: { accept?: string }; query?: Record<string, unknown> }): boolean {
  return negotiateFormat(req.headers.accept, req.query?.format, true) === 'csv';
}
