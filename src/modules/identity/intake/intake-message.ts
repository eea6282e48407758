import { ValidationError } from '../../../core/resource/errors';
import type { Row } from '../../../database/db';
import { USERNAME } from '../../users/resources/user.resource';
import type { IdentityMessage } from '../message/identity-message.validator';
import { canonicalJson } from '../message/message-hash';
import type { FieldChanges } from '../services/identity-history.service';

/**
 * What a message says of the person, before anything is written: the checks of the URL's
 * sor_id, the person's name and email, the username the source's rule derives, and the
 * changes of the message's own members for history.
 */

export type Obj = Record<string, unknown>;

export function checkSorId(sorId: string): void {
  if (sorId.length > 255) throw new ValidationError({ sor_id: ['Ensure this field has no more than 255 characters.'] });
  if (sorId.trim() === '') throw new ValidationError({ sor_id: ['This field may not be blank.'] });
  // One identity per id on every database: MariaDB ignores trailing spaces, PostgreSQL refuses NUL.
  if (sorId.trim() !== sorId) throw new ValidationError({ sor_id: ['Must not begin or end with white space.'] });
  if (/[\u0000-\u001f\u007f]/.test(sorId)) throw new ValidationError({ sor_id: ['Control characters are not allowed.'] });
}

export function parseJson(v: unknown): Obj {
  if (v && typeof v === 'object' && !Buffer.isBuffer(v)) return v as Obj;
  try {
    return JSON.parse(Buffer.isBuffer(v) ? v.toString('utf8') : String(v ?? '{}')) ?? {};
  } catch {
    return {};
  }
}

export interface Person {
  name: string;
  first: string;
  last: string;
  email: string;
}

const truncate = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

export function personOf(msg: IdentityMessage): Person {
  const n = msg.sorAttributes.names[0];
  const name = n ? [n.given, n.middle, n.family].filter((x) => x && x.trim()).join(' ') : '';
  return {
    name: truncate(name, 255),
    first: truncate(n?.given ?? '', 150),
    last: truncate(n?.family ?? '', 150),
    email: msg.sorAttributes.emailAddresses[0]?.mail ?? '',
  };
}

/**
 * The username: the first identifier of the source's `username_identifier_type`, else the
 * first email (lower-cased). A value the users app would refuse is a 400 at its path.
 */
export function deriveUsername(msg: IdentityMessage, raw: Obj, source: Row): string | null {
  const attrs = msg.sorAttributes;
  let value: string | null = null;
  let path = '';
  const type = String(source.username_identifier_type ?? '');
  const i = type ? attrs.identifiers.findIndex((x) => x.type === type) : -1;
  if (i >= 0) {
    value = attrs.identifiers[i].identifier;
    path = `sorAttributes.identifiers[${i}].identifier`;
  } else if (attrs.emailAddresses.length) {
    value = attrs.emailAddresses[0].mail.toLowerCase();
    const first = ((raw.sorAttributes as Obj).emailAddresses as Obj[])[0];
    path = `sorAttributes.emailAddresses[0].${'mail' in first ? 'mail' : 'address'}`;
  }
  if (value === null) return null;
  if (value.length > 150 || !USERNAME.test(value)) {
    throw new ValidationError({ [path]: [`"${value}" cannot be a username: at most 150 letters, digits and @/./+/-/_ characters.`] });
  }
  return value;
}

/** Changes in the message's members other than roles (names, emails, identifiers, addresses, ...), by JSON path. */
export function messageChanges(before: Obj | null, after: Obj): FieldChanges {
  const out: FieldChanges = {};
  const compare = (prefix: string, b: Obj | null, a: Obj, skip: string[]) => {
    const keys = [...new Set([...Object.keys(b ?? {}), ...Object.keys(a)])].filter((k) => !skip.includes(k)).sort();
    for (const k of keys) {
      const o = b ? (b[k] ?? null) : null;
      const n = a[k] ?? null;
      if (canonicalJson(o) !== canonicalJson(n)) out[`${prefix}${k}`] = { old: o, new: n };
    }
  };
  compare('', before, after, ['sorAttributes']);
  const sorOf = (o: Obj | null) => (o && o.sorAttributes && typeof o.sorAttributes === 'object' ? (o.sorAttributes as Obj) : null);
  compare('sorAttributes.', sorOf(before), sorOf(after) ?? {}, ['roles']);
  return out;
}
