import { parseDate, ValueError } from '../../../core/resource/query/values';

/** Formats the message's strings must have: RFC 3339 date-times, dates, URIs, E.164 numbers. */

/** RFC 3339 section 5.6 `date-time` (T or t, Z or z, or a numeric offset), with a real calendar date. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

export function parseRfc3339(s: string): Date | null {
  const m = RFC3339.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec, frac = '', , sign, oh, om] = m;
  if (+h > 23 || +mi > 59 || +sec > 59 || (oh !== undefined && (+oh > 23 || +om > 59))) return null;
  try {
    parseDate(`${y}-${mo}-${d}`);
  } catch (e) {
    if (e instanceof ValueError) return null;
    throw e;
  }
  const ms = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  const utc = Date.UTC(+y, +mo - 1, +d, +h, +mi, +sec, ms);
  const offset = sign ? (sign === '-' ? -1 : 1) * (+oh * 60 + +om) : 0;
  return new Date(utc - offset * 60_000);
}

/** An absolute URI (RFC 3986: a scheme, ":" and the rest, with no spaces). */
export function isAbsoluteUri(s: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

/** An absolute http(s) URL with a host. */
export function isHttpUrl(s: string): boolean {
  if (!/^https?:\/\/\S+$/i.test(s)) return false;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

export const E164 = /^\+[1-9]\d{1,14}$/;

export function isDate(s: string): boolean {
  try {
    parseDate(s);
    return s.trim() === s;
  } catch (e) {
    if (e instanceof ValueError) return false;
    throw e;
  }
}
