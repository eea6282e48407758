import { Checker, has, MESSAGES, Obj } from './message-checker';
import { isAbsoluteUri, isDate } from './message-formats';
import { MAX_STORED_LENGTH, Role, RoleCode, ROLE_CODES, SorAttributes } from './message-types';

/** The sections of a message below its top level: `sorAttributes`, and each of its roles. */

/** No attributes: what a message whose sorAttributes is missing or wrong is checked against. */
export const emptyAttributes = (): SorAttributes => ({ addresses: [], adhoc: [], emailAddresses: [], identifiers: [], names: [], telephoneNumbers: [], urls: [], roles: [] });

/** `sorAttributes`: every member, each role, and at least one name or identifier. */
export function sorAttributes(c: Checker, sor: Obj): SorAttributes {
  const attrs = emptyAttributes();
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
  return attrs;
}

/** One role: its members, its validity window in order, and a roleIdentifier no earlier role used. */
export function role(c: Checker, o: Obj, p: string, index: number, firstUse: Map<string, number>): Role | null {
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
