import { isEmail } from 'class-validator';
import { parseDate, ValueError } from '../../../core/resource/query/values';

/**
 * The external identity message (../shared/spec/external-identity-message.md), validated
 * strictly and completely: every error is reported at once, keyed by its JSON path
 * (`sorAttributes.roles[1].status`). Members the spec does not name are kept by the caller in
 * the stored message and ignored here. A pure function: no database, no clock.
 */

export const ROLE_CODES = ['A', 'D', 'D2', 'GP', 'S'] as const;
export type RoleCode = (typeof ROLE_CODES)[number];

export const MESSAGE_VERSION = '1.0.0';
export const MESSAGE_OBJECT_TYPE = 'externalIdentity';
/** Columns that hold these values are this wide. */
export const MAX_STORED_LENGTH = 255;
export const MAX_EMAIL_LENGTH = 254;
/** Deepest nesting of a message, unknown members included (the spec's own members reach 5). */
export const MAX_NESTING = 32;

export interface Address {
  country?: string;
  language?: string;
  locality?: string;
  postalCode?: string;
  region?: string;
  room?: string;
  streetAddress?: string;
  type?: string;
}
export interface Adhoc {
  tag: string;
  value?: string;
}
export interface EmailAddress {
  mail: string;
  type?: string;
  verified?: boolean;
}
export interface Identifier {
  identifier: string;
  type?: string;
}
export interface Name {
  given: string;
  family?: string;
  language?: string;
  middle?: string;
  prefix?: string;
  suffix?: string;
  type?: string;
}
export interface TelephoneNumber {
  number: string;
  type?: string;
}
export interface Url {
  url: string;
  type?: string;
}
export interface Role {
  affiliation: string;
  roleIdentifier: string;
  status: RoleCode;
  addresses: Address[];
  adhoc: Adhoc[];
  department?: string;
  managerIdentifier?: string;
  organization?: string;
  rank?: number;
  sponsorIdentifier?: string;
  telephoneNumbers: TelephoneNumber[];
  title?: string;
  validFrom?: Date;
  validThrough?: Date;
}
export interface SorAttributes {
  meta?: { id: string };
  addresses: Address[];
  adhoc: Adhoc[];
  dateOfBirth?: string;
  emailAddresses: EmailAddress[];
  identifiers: Identifier[];
  names: Name[];
  telephoneNumbers: TelephoneNumber[];
  urls: Url[];
  roles: Role[];
}
export interface IdentityMessage {
  meta?: { version: string; objectType: string };
  returnUrl?: string;
  sorAttributes: SorAttributes;
}

export type MessageErrors = Record<string, string[]>;
export type ValidationResult = { ok: true; message: IdentityMessage } | { ok: false; errors: MessageErrors };

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

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const has = (o: Obj, k: string) => Object.prototype.hasOwnProperty.call(o, k) && o[k] !== undefined;

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

class Checker {
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

function storable(c: Checker, v: unknown, path: string, depth: number): void {
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

/** Validates a parsed JSON body as an external identity message; collects every error. */
export function validateIdentityMessage(body: unknown): ValidationResult {
  const c = new Checker();
  if (!isObj(body)) {
    return { ok: false, errors: { non_field_errors: [body === null || body === undefined ? 'No data provided.' : MESSAGES.object(body)] } };
  }
  storable(c, body, '', 0);
  let meta: IdentityMessage['meta'];
  const m = c.object(body, 'meta', 'meta', false);
  if (m) {
    const version = c.constant(m, 'version', 'meta.version', MESSAGE_VERSION);
    const objectType = c.constant(m, 'objectType', 'meta.objectType', MESSAGE_OBJECT_TYPE);
    if (version && objectType) meta = { version, objectType };
  }
  const returnUrl = c.formatted(body, 'returnUrl', 'returnUrl', false, isHttpUrl, MESSAGES.httpUrl);
  const sor = c.object(body, 'sorAttributes', 'sorAttributes', true);
  const attrs: SorAttributes = { addresses: [], adhoc: [], emailAddresses: [], identifiers: [], names: [], telephoneNumbers: [], urls: [], roles: [] };
  if (sor) {
    const P = 'sorAttributes';
    const sm = c.object(sor, 'meta', `${P}.meta`, false);
    if (sm) {
      const id = c.string(sm, 'id', `${P}.meta.id`, { required: true });
      if (id !== undefined) attrs.meta = { id };
    }
    attrs.addresses = c.list(sor, 'addresses', `${P}.addresses`, c.address);
    attrs.adhoc = c.list(sor, 'adhoc', `${P}.adhoc`, c.adhoc);
    if (has(sor, 'dateOfBirth')) {
      attrs.dateOfBirth = c.formatted(sor, 'dateOfBirth', `${P}.dateOfBirth`, false, isDate, MESSAGES.date);
    }
    attrs.emailAddresses = c.list(sor, 'emailAddresses', `${P}.emailAddresses`, c.email);
    attrs.identifiers = c.list(sor, 'identifiers', `${P}.identifiers`, (o, p) => {
      const identifier = c.string(o, 'identifier', `${p}.identifier`, { required: true, max: MAX_STORED_LENGTH });
      const rest = c.strings(o, ['type'] as const, p);
      return identifier === undefined ? null : { identifier, ...rest };
    });
    attrs.names = c.list(sor, 'names', `${P}.names`, (o, p) => {
      const given = c.string(o, 'given', `${p}.given`, { required: true });
      const rest = c.strings(o, ['family', 'language', 'middle', 'prefix', 'suffix', 'type'] as const, p);
      return given === undefined ? null : { given, ...rest };
    });
    attrs.telephoneNumbers = c.list(sor, 'telephoneNumbers', `${P}.telephoneNumbers`, c.telephone);
    attrs.urls = c.list(sor, 'urls', `${P}.urls`, (o, p) => {
      const url = c.formatted(o, 'url', `${p}.url`, true, isAbsoluteUri, MESSAGES.uri);
      const rest = c.strings(o, ['type'] as const, p);
      return url === undefined ? null : { url, ...rest };
    });
    const firstUse = new Map<string, number>();
    attrs.roles = c.list(sor, 'roles', `${P}.roles`, (o, p, i) => role(c, o, p, i, firstUse));
    const listed = (k: string) => Array.isArray(sor[k]) && (sor[k] as unknown[]).length > 0;
    if (!listed('names') && !listed('identifiers')) c.error(P, MESSAGES.nameOrIdentifier);
  }
  if (Object.keys(c.errors).length) return { ok: false, errors: c.errors };
  return { ok: true, message: { ...(meta ? { meta } : {}), ...(returnUrl ? { returnUrl } : {}), sorAttributes: attrs } };
}

function isDate(s: string): boolean {
  try {
    parseDate(s);
    return s.trim() === s;
  } catch (e) {
    if (e instanceof ValueError) return false;
    throw e;
  }
}

function role(c: Checker, o: Obj, p: string, index: number, firstUse: Map<string, number>): Role | null {
  const affiliation = c.string(o, 'affiliation', `${p}.affiliation`, { required: true, max: MAX_STORED_LENGTH });
  const roleIdentifier = c.string(o, 'roleIdentifier', `${p}.roleIdentifier`, { required: true, max: MAX_STORED_LENGTH });
  // MariaDB compares text ignoring trailing spaces: "lab" and "lab " would be one role there.
  if (roleIdentifier !== undefined && roleIdentifier.trim() !== roleIdentifier) c.error(`${p}.roleIdentifier`, MESSAGES.edgeSpace);
  else if (roleIdentifier !== undefined) {
    const first = firstUse.get(roleIdentifier);
    if (first !== undefined) c.error(`${p}.roleIdentifier`, MESSAGES.duplicateRole(roleIdentifier, first));
    else firstUse.set(roleIdentifier, index);
  }
  let status: RoleCode | undefined;
  const rawStatus = c.string(o, 'status', `${p}.status`, { required: true });
  if (rawStatus !== undefined) {
    if ((ROLE_CODES as readonly string[]).includes(rawStatus)) status = rawStatus as RoleCode;
    else c.error(`${p}.status`, MESSAGES.choice(rawStatus, ROLE_CODES));
  }
  const text = c.strings(o, ['department', 'organization', 'title'] as const, p, MAX_STORED_LENGTH);
  const refs = c.strings(o, ['managerIdentifier', 'sponsorIdentifier'] as const, p);
  const rank = c.integer(o, 'rank', `${p}.rank`);
  const validFrom = c.dateTime(o, 'validFrom', `${p}.validFrom`);
  const validThrough = c.dateTime(o, 'validThrough', `${p}.validThrough`);
  if (validFrom && validThrough && validFrom.getTime() >= validThrough.getTime()) c.error(`${p}.validThrough`, MESSAGES.validOrder);
  const addresses = c.list(o, 'addresses', `${p}.addresses`, c.address);
  const adhoc = c.list(o, 'adhoc', `${p}.adhoc`, c.adhoc);
  const telephoneNumbers = c.list(o, 'telephoneNumbers', `${p}.telephoneNumbers`, c.telephone);
  if (affiliation === undefined || roleIdentifier === undefined || status === undefined) return null;
  return {
    affiliation,
    roleIdentifier,
    status,
    ...text,
    ...refs,
    ...(rank === undefined ? {} : { rank }),
    ...(validFrom ? { validFrom } : {}),
    ...(validThrough ? { validThrough } : {}),
    addresses,
    adhoc,
    telephoneNumbers,
  };
}
