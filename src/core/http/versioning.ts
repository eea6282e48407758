import { HttpResult } from '../resource/errors';

export const SUPPORTED_VERSIONS = ['2.0', '2.1', '2.2', '2.3', '2.4'];
export const DEFAULT_VERSION = '2.4';

/**
 * The API version a request asks for: `Accept: application/json; version=X` or
 * `?api_version=X` (spec section 9). Unsupported in the header: 406; in the query: 404;
 * both given and different: 400. Messages are the reference's.
 */
export function negotiateVersion(accept: string | undefined, query: unknown): string {
  const fromHeader = headerVersion(accept);
  const q = (query as Record<string, unknown> | undefined)?.api_version;
  const fromQuery = Array.isArray(q) ? String(q[0]) : q === undefined ? undefined : String(q);
  const list = SUPPORTED_VERSIONS.join(', ');
  if (fromHeader !== undefined && !SUPPORTED_VERSIONS.includes(fromHeader)) {
    throw new HttpResult(406, { detail: `Invalid version "${fromHeader}" in "Accept" header. Supported versions are: ${list}` });
  }
  if (fromQuery !== undefined && !SUPPORTED_VERSIONS.includes(fromQuery)) {
    throw new HttpResult(404, { detail: `Invalid version "${fromQuery}" in query parameter. Supported versions are: ${list}` });
  }
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery) {
    throw new HttpResult(400, { detail: 'Version mismatch between "Accept" header and query parameter.' });
  }
  return fromHeader ?? fromQuery ?? DEFAULT_VERSION;
}

function headerVersion(accept: string | undefined): string | undefined {
  if (!accept) return undefined;
  for (const part of accept.split(',')) {
    const params = part.split(';').slice(1);
    for (const p of params) {
      const [k, v] = p.split('=').map((s) => s.trim());
      if (k?.toLowerCase() === 'version' && v !== undefined) return v.replace(/^"|"$/g, '');
    }
  }
  return undefined;
}
