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

/** Whether a parsed JSON value nests objects and arrays deeper than `max` (iterative: no stack to overflow). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === 'object') stack.push([x, depth + 1]);
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
