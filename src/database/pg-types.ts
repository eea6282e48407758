import { types } from 'pg';

const TIMESTAMPTZ = 1184;
const libraryTimestamptz = types.getTypeParser(TIMESTAMPTZ, 'text') as (s: string) => Date;

/**
 * node-postgres's type parsers, except for timestamptz in its usual text form
 * (`2026-11-24 01:53:54.364+00`: years 1000-9999, up to six fraction digits, an offset in hours
 * and optional minutes and seconds), which is read from its digits. The library's parser
 * (postgres-date) takes every other form (BC, infinity, other years) and gives the same Date for
 * these; it matches each value with a regular expression, and a page of 1,000 rows has 2,000 such
 * values (about 1 MB of short-lived strings per page). The text read last is remembered with its
 * time: a value equal to it (most of a page's, when its rows were created in bulk) is not read again.
 */
export const pgTypeParsers = {
  getTypeParser(oid: number, format: 'text' | 'binary' = 'text'): unknown {
    if (oid === TIMESTAMPTZ && format === 'text') return parseTimestamptz;
    return types.getTypeParser(oid, format);
  },
};

/** The last value read and its time: rows written together (a bulk create) share their timestamps. */
let lastText = '';
let lastTime = 0;

export function parseTimestamptz(s: string): Date {
  if (s === lastText) return new Date(lastTime);
  const d = readTimestamptz(s);
  if (d instanceof Date && !Number.isNaN(d.getTime())) {
    lastText = s;
    lastTime = d.getTime();
  }
  return d;
}

function readTimestamptz(s: string): Date {
  const n = s.length;
  // YYYY-MM-DD HH:MM:SS, then .f{1,6}, then (+|-)HH[:MM[:SS]]
  if (n < 22 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 32 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) {
    return libraryTimestamptz(s);
  }
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  let i = 19;
  let ms = 0;
  if (s.charCodeAt(i) === 46) {
    i++;
    const start = i;
    while (i < n && i - start < 6 && isDigit(s.charCodeAt(i))) i++;
    const len = i - start;
    if (len === 0) return libraryTimestamptz(s);
    // Milliseconds, the rest cut off (as the library, and Date, do).
    ms = len >= 3 ? digits(s, start, 3) : digits(s, start, len) * (len === 1 ? 100 : 10);
  }
  const sign = s.charCodeAt(i);
  if ((sign !== 43 && sign !== 45) || year < 1000 || Number.isNaN(year + month + day + hour + minute + second + ms)) return libraryTimestamptz(s);
  let offset = 0;
  const rest = n - i - 1; // after the sign: HH, HH:MM or HH:MM:SS
  if (rest === 2) offset = digits(s, i + 1, 2) * 3600;
  else if (rest === 5 && s.charCodeAt(i + 3) === 58) offset = digits(s, i + 1, 2) * 3600 + digits(s, i + 4, 2) * 60;
  else if (rest === 8 && s.charCodeAt(i + 3) === 58 && s.charCodeAt(i + 6) === 58) offset = digits(s, i + 1, 2) * 3600 + digits(s, i + 4, 2) * 60 + digits(s, i + 7, 2);
  else return libraryTimestamptz(s);
  if (Number.isNaN(offset)) return libraryTimestamptz(s);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - (sign === 43 ? offset : -offset) * 1000);
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** The number written by `len` decimal digits at `at`; NaN if any is not a digit. */
function digits(s: string, at: number, len: number): number {
  let v = 0;
  for (let k = at; k < at + len; k++) {
    const c = s.charCodeAt(k);
    if (!isDigit(c)) return NaN;
    v = v * 10 + (c - 48);
  }
  return v;
}
