import type { ScalarField } from '../fields';
import { formatDate, formatDateTime } from '../query/values';

/** A stored scalar as the API shows it, whatever the driver returned. */
export function readScalar(f: ScalarField, v: unknown): unknown {
  if (v === null || v === undefined) return f.type === 'json' ? (v ?? null) : null;
  let out: unknown;
  switch (f.type) {
    case 'boolean':
      out = v === true || v === 1 || v === '1' || v === 't' || v === 'true';
      break;
    case 'integer':
      out = typeof v === 'number' ? v : Number(v);
      break;
    case 'decimal': {
      const places = f.decimalPlaces ?? 2;
      out = typeof v === 'number' ? v.toFixed(places) : Number(v).toFixed(places);
      break;
    }
    case 'date':
      out = formatDate(v);
      break;
    case 'datetime':
      out = formatDateTime(v);
      break;
    case 'json':
      out = typeof v === 'string' ? safeJson(v) : Buffer.isBuffer(v) ? safeJson(v.toString('utf8')) : v;
      break;
    default:
      out = String(v);
  }
  if (f.choices) {
    const c = f.choices.find(([value]) => String(value) === String(out));
    return { value: out, label: c ? c[1] : String(out) };
  }
  return out;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

/** Django's slugify, with dots, slashes and colons first made into dashes (addresses). */
const SIMPLE_SLUG = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
/** Letters, digits and the separators of names and addresses: what the general steps would only dash and trim. */
const PLAIN_SLUG = /^[a-z0-9_./:-]*$/;

export function slugify(v: unknown): string {
  const str = String(v).toLowerCase();
  if (SIMPLE_SLUG.test(str)) return str;
  // The same result as the general steps below for such text (an address, "site.1"), in two.
  if (PLAIN_SLUG.test(str)) return str.replace(/[-./:]+/g, '-').replace(/^[-_]+|[-_]+$/g, '');
  return slugifyText(str);
}

/** The general steps (Django's slugify after dashing dots, slashes and colons). */
export function slugifyText(str: string): string {
  return str
    .replace(/[./:]/g, '-')
    .normalize('NFKD')
    .replace(/[^\x00-\x7f]/g, '')
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/[-\s]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}
