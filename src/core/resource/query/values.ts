/**
 * Parsers for single values given as strings (query parameters, CSV cells) or JSON values.
 * Each returns the typed value or throws a ValueError with a client-facing message.
 */
export class ValueError extends Error {}

export const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A UUID as netkeel writes it (lower case, hyphenated): most that clients send back. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function parseUuid(v: unknown): string {
  if (typeof v === 'string' && CANONICAL_UUID.test(v)) return v;
  const s = typeof v === 'string' ? v.trim() : '';
  if (!UUID_RE.test(s)) throw new ValueError('Must be a valid UUID.');
  const hex = s.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID_RE.test(v.trim());

export function parseInteger(v: unknown): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*[-+]?\d+(\.0*)?\s*$/.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n)) return n;
  }
  throw new ValueError('A valid integer is required.');
}

export function parseDecimal(v: unknown): string {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(s) || !Number.isFinite(Number(s))) throw new ValueError('A valid number is required.');
  return s;
}

export function parseNumber(v: unknown): number {
  return Number(parseDecimal(v));
}

export function parseBoolean(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', '1', 'yes', 'on', 't', 'y'].includes(s)) return true;
    if (['false', '0', 'no', 'off', 'f', 'n'].includes(s)) return false;
  }
  throw new ValueError('Must be a valid boolean.');
}

export function parseDate(v: unknown): string {
  const s = typeof v === 'string' ? v.trim() : '';
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (m) {
    const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
    if (d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3]) return s;
  }
  throw new ValueError('Date has wrong format. Use one of these formats instead: YYYY-MM-DD.');
}

const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

export function parseDateTime(v: unknown): Date {
  const s = typeof v === 'string' ? v.trim() : '';
  const m = DATETIME_RE.exec(s);
  if (m) {
    const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', tz = 'Z'] = m;
    const iso = `${y}-${mo}-${d}T${h}:${mi}:${sec}.${(frac + '000').slice(0, 3)}${tz.toUpperCase() === 'Z' ? 'Z' : tz.length === 5 ? tz.slice(0, 3) + ':' + tz.slice(3) : tz}`;
    const date = new Date(iso);
    if (!Number.isNaN(date.getTime()) && +mo >= 1 && +mo <= 12 && +d >= 1 && +d <= 31 && +h < 24 && +mi < 60 && +sec < 60) return date;
  }
  throw new ValueError('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].');
}

/** Date rendered by a driver (Date at UTC midnight or string) as YYYY-MM-DD. */
export function formatDate(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return String(v).slice(0, 10);
}

/** ISO 8601 in UTC as the reference renders it: microseconds only when non-zero, `Z` suffix. */
let lastTime = NaN;
let lastText = '';

export function formatDateTime(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) {
    // Rows written by one request share their timestamps: remember the last one formatted.
    const time = v.getTime();
    if (time === lastTime) return lastText;
    const iso = v.toISOString();
    lastTime = time;
    lastText = iso.charCodeAt(20) === 48 && iso.charCodeAt(21) === 48 && iso.charCodeAt(22) === 48 ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 23)}000Z`;
    return lastText;
  }
  const d = new Date(String(v).replace(' ', 'T') + (/[zZ]|[+-]\d\d:?\d\d$/.test(String(v)) ? '' : 'Z'));
  if (Number.isNaN(d.getTime())) return null;
  const iso = d.toISOString();
  const ms = d.getUTCMilliseconds();
  return ms ? `${iso.slice(0, 19)}.${String(ms * 1000).padStart(6, '0')}Z` : `${iso.slice(0, 19)}Z`;
}

/**
 * A natural key as written in a URL or a reference ("EU;Paris", "%00" for null): split on `;`,
 * then percent-decode each part. Text that is not valid percent-encoding ("50%") is taken as
 * it is, so a name with a `%` in it is never an error.
 */
export function parseNaturalKey(s: string): (string | null)[] {
  return s.split(';').map((p) => {
    if (p === '%00') return null;
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
}
