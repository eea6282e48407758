import { BadRequestError } from './errors';

/** How deep JSON a client may send (bodies, JSON cells of a CSV): far beyond any real value. */
export const MAX_JSON_DEPTH = 100;

/**
 * How deep a stored JSON value may nest: MariaDB's JSON allows 32 levels in a column, and a
 * custom field's value sits inside the object of all custom fields.
 */
export const MAX_STORED_JSON_DEPTH = 30;
export const STORED_DEPTH_MESSAGE = `JSON nested deeper than ${MAX_STORED_JSON_DEPTH} levels cannot be stored.`;

export const NUL_MESSAGE = 'Null characters are not allowed.';

/**
 * Whether a parsed JSON value nests objects and arrays deeper than `max`. Recursive, but never
 * more than `max` + 1 calls deep (it answers as soon as it is that deep), and without allocating:
 * a change record checks two documents per object, 1,000 objects per bulk write.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  return value !== null && typeof value === 'object' && deeper(value, 1, max);
}

function deeper(v: object, depth: number, max: number): boolean {
  if (depth > max) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (x !== null && typeof x === 'object' && deeper(x, depth + 1, max)) return true;
  } else {
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object' && deeper(x, depth + 1, max)) return true;
    }
  }
  return false;
}

/** Throws 400 when a parsed JSON value is nested too deep to store and show. */
export function checkJsonDepth(value: unknown): void {
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) throw new BadRequestError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted.`);
}

/** JSON text that escapes a NUL character (`\u0000` after an even run of backslashes). */
export function jsonHasNul(text: string): boolean {
  return text.includes('u0000') && /(^|[^\\])(\\\\)*\\u0000/i.test(text);
}

/**
 * The value with every object or array nested deeper than `max` levels replaced by its JSON
 * text, so it fits a JSON column (a copy that embeds stored values one level further down: a
 * change record's `custom_fields`). Values that fit come back unchanged (the same object).
 */
export function fitDepth<T>(value: T, max: number = MAX_STORED_JSON_DEPTH): T {
  if (!nestedDeeperThan(value, max)) return value;
  const cut = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (depth > max) return JSON.stringify(v);
    return Array.isArray(v) ? v.map((x) => cut(x, depth + 1)) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x, depth + 1)]));
  };
  return cut(value, 1) as T;
}
