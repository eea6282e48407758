import { isEmail } from '../../../core/class-validator';
import { E164, parseRfc3339 } from './message-formats';
import { Address, Adhoc, EmailAddress, MAX_EMAIL_LENGTH, MAX_NESTING, MessageErrors, TelephoneNumber } from './message-types';

/**
 * The validator's building blocks: the error messages, and a checker that reads one member at
 * a time, recording every error under its JSON path instead of stopping at the first.
 */

export const MESSAGES = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  string: 'Not a valid string.',
  boolean: 'Must be a valid boolean.',
  integer: 'A valid integer is required.',
  list: (got: unknown) => `Expected a list of items but got type "${typeName(got)}".`,
  object: (got: unknown) => `Invalid data. Expected a dictionary, but got ${typeName(got)}.`,
  constant: (want: string) => `Must be "${want}".`,
  maxLength: (n: number) => `Ensure this field has no more than ${n} characters.`,
  choice: (got: unknown, choices: readonly string[]) => `"${String(got)}" is not one of ${choices.join(', ')}.`,
  httpUrl: 'Enter a valid absolute http or https URL.',
  uri: 'Enter a valid absolute URI (a scheme, then ":").',
  email: 'Enter a valid email address.',
  e164: 'Enter a telephone number in E.164 format (+ and up to 15 digits, e.g. +31201234567).',
  dateTime: 'Enter a valid RFC 3339 date-time, e.g. 2025-01-31T09:00:00Z.',
  date: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  validOrder: 'Must be later than validFrom.',
  duplicateRole: (id: string, first: number) => `roleIdentifier "${id}" is already used by roles[${first}]; each role needs its own.`,
  nameOrIdentifier: 'A message needs at least one name or one identifier.',
  bothMailSpellings: 'Give the address once, as "mail" (or the older "address"), not both with different values.',
  nullCharacter: 'Null characters are not allowed.',
  loneSurrogate: 'Not valid Unicode text: a lone surrogate (an unpaired \\uD800-\\uDFFF escape).',
  edgeSpace: 'Must not begin or end with white space.',
  nesting: `Nested too deeply (more than ${MAX_NESTING} levels).`,
};

/** Python-style type names, as the API's other validation messages use them. */
function typeName(v: unknown): string {
  if (v === null) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'boolean') return 'bool';
  return 'dict';
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
export const has = (o: Obj, k: string) => Object.prototype.hasOwnProperty.call(o, k) && o[k] !== undefined;

export class Checker {
  readonly errors: MessageErrors = {};

  error(path: string, message: string): void {
    (this.errors[path] ??= []).push(message);
  }

  /** An object member that must be a JSON object (returns null when absent or wrong). */
  object(o: Obj, key: string, path: string, required: boolean): Obj | null {
    if (!has(o, key)) {
      if (required) this.error(path, MESSAGES.required);
      return null;
    }
    const v = o[key];
    if (v === null) {
      this.error(path, MESSAGES.null);
      return null;
    }
    if (!isObj(v)) {
      this.error(path, MESSAGES.object(v));
      return null;
    }
    return v;
  }

  /** An optional list member; each element is handed to `each` with its path. */
  list<T>(o: Obj, key: string, path: string, each: (item: Obj, path: string, index: number) => T | null): T[] {
    if (!has(o, key)) return [];
    const v = o[key];
    if (v === null) {
      this.error(path, MESSAGES.null);
      return [];
    }
    if (!Array.isArray(v)) {
      this.error(path, MESSAGES.list(v));
      return [];
    }
    const out: T[] = [];
    v.forEach((item, i) => {
      const p = `${path}[${i}]`;
      if (!isObj(item)) {
        this.error(p, item === null ? MESSAGES.null : MESSAGES.object(item));
        return;
      }
      const r = each(item, p, i);
      if (r !== null) out.push(r);
    });
    return out;
  }

  /** A string member; required ones may not be blank. Returns undefined when absent or wrong. */
  string(o: Obj, key: string, path: string, opts: { required?: boolean; max?: number } = {}): string | undefined {
    if (!has(o, key)) {
      if (opts.required) this.error(path, MESSAGES.required);
      return undefined;
    }
    const v = o[key];
    if (v === null) {
      this.error(path, MESSAGES.null);
      return undefined;
    }
    if (typeof v !== 'string') {
      this.error(path, MESSAGES.string);
      return undefined;
    }
    if (opts.required && v.trim() === '') {
      this.error(path, MESSAGES.blank);
      return undefined;
    }
    if (opts.max !== undefined && v.length > opts.max) {
      this.error(path, MESSAGES.maxLength(opts.max));
      return undefined;
    }
    return v;
  }

  /** A string member that must also pass a format check. */
  formatted(o: Obj, key: string, path: string, required: boolean, ok: (s: string) => boolean, message: string, max?: number): string | undefined {
    const s = this.string(o, key, path, { required, max });
    if (s === undefined) return undefined;
    if (!ok(s)) {
      this.error(path, message);
      return undefined;
    }
    return s;
  }

  strings<K extends string>(o: Obj, keys: readonly K[], path: string, max?: number): Partial<Record<K, string>> {
    const out: Partial<Record<K, string>> = {};
    for (const k of keys) {
      const v = this.string(o, k, `${path}.${k}`, { max });
      if (v !== undefined) out[k] = v;
    }
    return out;
  }

  boolean(o: Obj, key: string, path: string): boolean | undefined {
    if (!has(o, key)) return undefined;
    const v = o[key];
    if (typeof v !== 'boolean') {
      this.error(path, v === null ? MESSAGES.null : MESSAGES.boolean);
      return undefined;
    }
    return v;
  }

  integer(o: Obj, key: string, path: string): number | undefined {
    if (!has(o, key)) return undefined;
    const v = o[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      this.error(path, v === null ? MESSAGES.null : MESSAGES.integer);
      return undefined;
    }
    return v;
  }

  dateTime(o: Obj, key: string, path: string): Date | undefined {
    const s = this.string(o, key, path);
    if (s === undefined) return undefined;
    const d = parseRfc3339(s);
    if (!d) this.error(path, MESSAGES.dateTime);
    return d ?? undefined;
  }

  constant(o: Obj, key: string, path: string, want: string): string | undefined {
    const s = this.string(o, key, path, { required: true });
    if (s === undefined) return undefined;
    if (s !== want) {
      this.error(path, MESSAGES.constant(want));
      return undefined;
    }
    return s;
  }

  address = (a: Obj, p: string): Address =>
    this.strings(a, ['country', 'language', 'locality', 'postalCode', 'region', 'room', 'streetAddress', 'type'] as const, p);

  adhoc = (a: Obj, p: string): Adhoc | null => {
    const tag = this.string(a, 'tag', `${p}.tag`, { required: true });
    const rest = this.strings(a, ['value'] as const, p);
    return tag === undefined ? null : { tag, ...rest };
  };

  telephone = (t: Obj, p: string): TelephoneNumber | null => {
    const number = this.formatted(t, 'number', `${p}.number`, true, (s) => E164.test(s), MESSAGES.e164);
    const rest = this.strings(t, ['type'] as const, p);
    return number === undefined ? null : { number, ...rest };
  };

  /** `mail`, or the older `address` spelling that sources in the wild still send. */
  email = (e: Obj, p: string): EmailAddress | null => {
    const key = has(e, 'mail') ? 'mail' : has(e, 'address') ? 'address' : 'mail';
    const okMail = (s: string) => isEmail(s);
    const mail = this.formatted(e, key, `${p}.${key}`, true, okMail, MESSAGES.email, MAX_EMAIL_LENGTH);
    if (key === 'mail' && has(e, 'address') && mail !== undefined && e.address !== mail) this.error(`${p}.address`, MESSAGES.bothMailSpellings);
    const rest = this.strings(e, ['type'] as const, p);
    const verified = this.boolean(e, 'verified', `${p}.verified`);
    return mail === undefined ? null : { mail, ...rest, ...(verified === undefined ? {} : { verified }) };
  };
}

/**
 * What the databases cannot keep, anywhere in the message (unknown members too, since the
 * message is stored): null characters, and nesting deeper than MAX_NESTING.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function storable(c: Checker, v: unknown, path: string, depth: number): void {
  const at = (k: string | number) => (typeof k === 'number' ? `${path}[${k}]` : path ? `${path}.${k}` : k);
  if (typeof v === 'string') {
    if (v.includes('\u0000')) c.error(path, MESSAGES.nullCharacter);
    // PostgreSQL's jsonb refuses a lone surrogate; MariaDB would store it: refuse it everywhere.
    if (LONE_SURROGATE.test(v)) c.error(path, MESSAGES.loneSurrogate);
    return;
  }
  if (!v || typeof v !== 'object') return;
  if (depth >= MAX_NESTING) {
    c.error(path, MESSAGES.nesting);
    return;
  }
  if (Array.isArray(v)) v.forEach((x, i) => storable(c, x, at(i), depth + 1));
  else
    for (const [k, x] of Object.entries(v)) {
      if (k.includes('\u0000')) c.error(path || 'non_field_errors', MESSAGES.nullCharacter);
      storable(c, x, at(k), depth + 1);
    }
}
