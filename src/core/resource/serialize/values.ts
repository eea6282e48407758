import type { Choices, ScalarField } from '../fields';
import { constant } from './json-encoder';
import { formatDate, formatDateTime } from '../query/values';

/** A stored boolean as the drivers return it: PostgreSQL's true/'t', MySQL's 1/'1', text 'true'. */
export const storedBoolean = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 't' || v === 'true';

/** A stored scalar as the API shows it, whatever the driver returned. */
export function readScalar(f: ScalarField, v: unknown): unknown {
  if (v === null || v === undefined) return f.type === 'json' ? (v ?? null) : null;
  let out: unknown;
  switch (f.type) {
    case 'boolean':
      out = storedBoolean(v);
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
  return f.choices ? choiceValue(f.choices, out) : out;
}

/** Each choice list's `{value, label}` objects by the value's text: shared, unchanging (constant). */
const choiceValues = new WeakMap<Choices, Map<string, Readonly<Record<string, string | number | boolean | null>>>>();

/** A stored choice as the API shows it: `{value, label}` (a value not in the list labelled by itself; blank as null). */
function choiceValue(choices: Choices, value: unknown): unknown {
  // A blank choice that is not in the list reads as null, as the reference's ChoiceField shows it.
  if (value === '' && !choices.some(([v]) => v === '')) return null;
  let byValue = choiceValues.get(choices);
  if (!byValue) choiceValues.set(choices, (byValue = new Map()));
  const key = String(value);
  let shown = byValue.get(key);
  if (!shown) {
    const c = choices.find(([v]) => String(v) === key);
    const obj = { value: value as string | number | boolean | null, label: c ? c[1] : key };
    // Stored values outside the list are few; they are not kept (the list of them is not bounded).
    if (!c || (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')) return obj;
    byValue.set(key, (shown = constant(obj)));
  }
  return shown;
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

/** An IPv4 address's text: its slug is the text with dashes for dots. */
const IPV4_TEXT = /^\d+(?:\.\d+)*$/;

export function slugify(v: unknown): string {
  const str = String(v).toLowerCase();
  if (SIMPLE_SLUG.test(str)) return str;
  if (IPV4_TEXT.test(str)) return str.replaceAll('.', '-');
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

/** A JSON object column's value (MariaDB returns JSON as text), {} for none or junk. */
export function parseJsonObject(v: unknown): Record<string, unknown> {
  if (!v) return {};
  if (typeof v === 'string') {
    try {
      return JSON.parse(v) ?? {};
    } catch {
      return {};
    }
  }
  if (Buffer.isBuffer(v)) return parseJsonObject(v.toString('utf8'));
  return v as Record<string, unknown>;
}
