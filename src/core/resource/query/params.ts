import type { Settings } from '../../../config/settings';
import { ValidationError } from '../errors';

export type Query = Map<string, string[]>;

/** Express query object -> ordered multimap of strings. */
export function toQuery(q: unknown): Query {
  const out: Query = new Map();
  if (!q || typeof q !== 'object') return out;
  for (const [k, v] of Object.entries(q as Record<string, unknown>)) {
    const list = Array.isArray(v) ? v : [v];
    out.set(k, list.map((x) => (typeof x === 'string' ? x : x === undefined || x === null ? '' : JSON.stringify(x))));
  }
  return out;
}

export const first = (q: Query, key: string): string | undefined => q.get(key)?.[0];

export const MAX_DEPTH = 10;

/** `depth`: 0..10 on GET; any other value, or a non-zero depth on a write, is a 400. */
export function parseDepth(q: Query, method: string): number {
  const raw = first(q, 'depth');
  if (raw === undefined || raw.trim() === '') return 0;
  if (!/^\s*\d+\s*$/.test(raw) || Number(raw) > MAX_DEPTH) {
    throw new ValidationError({ depth: [`The depth parameter must be an integer between 0 and ${MAX_DEPTH}.`] });
  }
  const depth = Number(raw);
  if (depth !== 0 && !['GET', 'HEAD'].includes(method)) {
    throw new ValidationError({ depth: ['The depth parameter is only supported on GET; write responses are always at depth 0.'] });
  }
  return depth;
}

export interface Page {
  limit: number | null;
  offset: number;
}

/** limit/offset as the reference paginates: bad values fall back, limit is clamped to MAX_PAGE_SIZE. */
export function parsePage(q: Query, settings: Settings): Page {
  const max = settings.MAX_PAGE_SIZE;
  const rawLimit = first(q, 'limit');
  let limit: number | null = settings.PAGINATE_COUNT;
  if (rawLimit !== undefined && /^\s*\d+\s*$/.test(rawLimit)) {
    const n = Number(rawLimit);
    limit = n === 0 ? (max ? max : null) : max ? Math.min(n, max) : n;
  }
  if (limit !== null && max) limit = Math.min(limit, max);
  const rawOffset = first(q, 'offset');
  const offset = rawOffset !== undefined && /^\s*\d+\s*$/.test(rawOffset) ? Math.min(Number(rawOffset), Number.MAX_SAFE_INTEGER) : 0;
  return { limit, offset };
}

export function parseBool(q: Query, key: string): boolean {
  const v = first(q, key);
  if (v === undefined) return false;
  const s = v.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off', ''].includes(s)) return false;
  throw new ValidationError({ [key]: ['Must be a valid boolean.'] });
}

export const INCLUDE_OPTIONS = ['relationships', 'config_context', 'computed_fields'];

export function parseInclude(q: Query): Set<string> {
  const out = new Set<string>();
  for (const v of q.get('include') ?? []) {
    for (const part of v.split(',').map((s) => s.trim()).filter(Boolean)) {
      if (!INCLUDE_OPTIONS.includes(part)) throw new ValidationError({ include: [`"${part}" is not a valid choice; use one of ${INCLUDE_OPTIONS.join(', ')}.`] });
      out.add(part);
    }
  }
  return out;
}

/** Rebuilds a page link the way the reference does: params sorted, limit/offset replaced. */
export function pageLink(base: string, q: Query, set: Record<string, string | null>): string {
  const pairs: [string, string][] = [];
  for (const [k, vs] of q) if (!(k in set)) vs.forEach((v) => pairs.push([k, v]));
  for (const [k, v] of Object.entries(set)) if (v !== null) pairs.push([k, v]);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const qs = new URLSearchParams(pairs).toString();
  return qs ? `${base}?${qs}` : base;
}
