import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level: two messages that differ only in key order are the same message. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export const messageHash = (v: unknown): string => createHash('sha256').update(canonicalJson(v)).digest('hex');
