import { isAbsoluteUri, isHttpUrl, parseRfc3339, validateIdentityMessage } from '../../src/modules/identity/message/identity-message.validator';
import { canonicalJson, messageHash } from '../../src/modules/identity/message/message-hash';
import { MALFORMED } from './malformed-messages';
import { fullMessage, person, role } from './messages';

type Obj = Record<string, any>;

/** The errors of a message built from the full valid one by `edit`. */
function errorsOf(edit: (m: Obj) => void): Record<string, string[]> {
  const m = fullMessage();
  edit(m);
  const r = validateIdentityMessage(m);
  if (r.ok) throw new Error('expected the message to be refused');
  return r.errors;
}

/** Nesting up to the limit is fine. */
function m32() {
  const m = fullMessage();
  m.extension = JSON.parse('['.repeat(31) + ']'.repeat(31));
  ok(m);
}

const ok = (m: unknown) => {
  const r = validateIdentityMessage(m);
  if (!r.ok) throw new Error(`expected a valid message, got ${JSON.stringify(r.errors)}`);
  return r.message;
};

describe('external identity message validator', () => {
  it('accepts the full message and returns it normalised', () => {
    const m = ok(fullMessage());
    expect(m.meta).toEqual({ version: '1.0.0', objectType: 'externalIdentity' });
    expect(m.returnUrl).toBe('https://enroll.example.org/petitions/42?step=done');
    const r = m.sorAttributes.roles[0];
    expect(r).toMatchObject({ affiliation: 'staff', roleIdentifier: 'staff-1', status: 'A', rank: 1, title: 'Engineer' });
    expect(r.validFrom).toEqual(new Date('2020-01-01T00:00:00Z'));
    expect(r.validThrough).toEqual(new Date('2039-12-31T23:00:00Z'));
    expect(m.sorAttributes.emailAddresses[0]).toEqual({ mail: 'Ada.Lovelace@example.org', type: 'official', verified: true });
    expect(m.sorAttributes.dateOfBirth).toBe('1990-02-28');
  });

  it('requires a JSON object', () => {
    expect(validateIdentityMessage([])).toEqual({ ok: false, errors: { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] } });
    expect(validateIdentityMessage(null)).toEqual({ ok: false, errors: { non_field_errors: ['No data provided.'] } });
  });

  it('requires sorAttributes, as an object', () => {
    expect(errorsOf((m) => delete m.sorAttributes)).toEqual({ sorAttributes: ['This field is required.'] });
    expect(errorsOf((m) => (m.sorAttributes = 'x'))).toEqual({ sorAttributes: ['Invalid data. Expected a dictionary, but got str.'] });
  });

  it('needs meta.version "1.0.0" and meta.objectType "externalIdentity" when meta is present', () => {
    expect(ok({ sorAttributes: { names: [{ given: 'A' }] } }).meta).toBeUndefined();
    expect(errorsOf((m) => (m.meta = {}))).toEqual({ 'meta.version': ['This field is required.'], 'meta.objectType': ['This field is required.'] });
    expect(errorsOf((m) => (m.meta = { version: '1.0', objectType: 'ExternalIdentity' }))).toEqual({
      'meta.version': ['Must be "1.0.0".'],
      'meta.objectType': ['Must be "externalIdentity".'],
    });
  });

  it('needs returnUrl to be an absolute http(s) URI', () => {
    for (const bad of ['/relative', 'mailto:a@example.org', 'https://', 'http//example.org', 'https://exa mple.org/']) {
      expect(errorsOf((m) => (m.returnUrl = bad))).toEqual({ returnUrl: ['Enter a valid absolute http or https URL.'] });
    }
    expect(isHttpUrl('http://localhost:8080/x')).toBe(true);
  });

  it('needs sorAttributes.meta.id when sorAttributes.meta is present', () => {
    expect(errorsOf((m) => (m.sorAttributes.meta = { id: '' }))).toEqual({ 'sorAttributes.meta.id': ['This field may not be blank.'] });
  });

  it('needs affiliation on every role', () => {
    expect(errorsOf((m) => delete m.sorAttributes.roles[0].affiliation)).toEqual({ 'sorAttributes.roles[0].affiliation': ['This field is required.'] });
  });

  it('needs roleIdentifier on every role, unique within the message', () => {
    expect(errorsOf((m) => delete m.sorAttributes.roles[0].roleIdentifier)).toEqual({ 'sorAttributes.roles[0].roleIdentifier': ['This field is required.'] });
    const dup = errorsOf((m) => m.sorAttributes.roles.push(role('other', 'student'), role('staff-1', 'student')));
    expect(dup).toEqual({ 'sorAttributes.roles[2].roleIdentifier': ['roleIdentifier "staff-1" is already used by roles[0]; each role needs its own.'] });
  });

  it('needs status in A, D, D2, GP, S, with the message naming the codes', () => {
    const e = errorsOf((m) => m.sorAttributes.roles.push(role('r2', 'student', 'X')));
    expect(e).toEqual({ 'sorAttributes.roles[1].status': ['"X" is not one of A, D, D2, GP, S.'] });
    expect(errorsOf((m) => delete m.sorAttributes.roles[0].status)).toEqual({ 'sorAttributes.roles[0].status': ['This field is required.'] });
    for (const code of ['A', 'D', 'D2', 'GP', 'S']) ok(person({ roles: [role('r', 'staff', code)] }));
  });

  it('needs rank to be an integer', () => {
    for (const bad of [1.5, '1', true, null]) {
      expect(Object.keys(errorsOf((m) => (m.sorAttributes.roles[0].rank = bad)))).toEqual(['sorAttributes.roles[0].rank']);
    }
    expect(ok(person({ roles: [role('r', 'staff', 'A', { rank: -3 })] })).sorAttributes.roles[0].rank).toBe(-3);
  });

  it('needs validFrom and validThrough to be RFC 3339 date-times', () => {
    for (const bad of ['2020-01-01', '2020-01-01T00:00:00', '2020-01-01 00:00:00Z', '2020-02-30T00:00:00Z', '2020-01-01T24:00:00Z', '2020-01-01T00:00:00+25:00', 'tomorrow']) {
      expect(errorsOf((m) => (m.sorAttributes.roles[0].validFrom = bad))).toEqual({ 'sorAttributes.roles[0].validFrom': ['Enter a valid RFC 3339 date-time, e.g. 2025-01-31T09:00:00Z.'] });
    }
    expect(parseRfc3339('2024-02-29t23:59:59.5-02:30')).toEqual(new Date('2024-03-01T02:29:59.500Z'));
  });

  it('needs validFrom to be before validThrough', () => {
    const e = errorsOf((m) => (m.sorAttributes.roles[0].validThrough = '2020-01-01T00:00:00Z'));
    expect(e).toEqual({ 'sorAttributes.roles[0].validThrough': ['Must be later than validFrom.'] });
    ok(person({ roles: [role('r', 'staff', 'A', { validFrom: '2020-01-01T00:00:00Z', validThrough: '2020-01-01T00:00:00.001Z' })] }));
  });

  it('needs dateOfBirth to be a date (YYYY-MM-DD)', () => {
    for (const bad of ['1990-2-28', '1990-02-30', '1990-02-28T00:00:00Z', ' 1990-02-28']) {
      expect(errorsOf((m) => (m.sorAttributes.dateOfBirth = bad))).toEqual({ 'sorAttributes.dateOfBirth': ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'] });
    }
  });

  it('needs every email address to be valid', () => {
    for (const bad of ['ada', 'ada@', '@example.org', 'ada lovelace@example.org', 'ada@example']) {
      expect(errorsOf((m) => (m.sorAttributes.emailAddresses[0].mail = bad))).toEqual({ 'sorAttributes.emailAddresses[0].mail': ['Enter a valid email address.'] });
    }
    expect(errorsOf((m) => (m.sorAttributes.emailAddresses[0] = { type: 'x' }))).toEqual({ 'sorAttributes.emailAddresses[0].mail': ['This field is required.'] });
    expect(errorsOf((m) => (m.sorAttributes.emailAddresses[0].verified = 1))).toEqual({ 'sorAttributes.emailAddresses[0].verified': ['Must be a valid boolean.'] });
  });

  it('accepts the older "address" spelling of an email address', () => {
    const m = ok(person({ email: '', extra: { emailAddresses: [{ address: 'old@example.org', type: 'home' }] } }));
    expect(m.sorAttributes.emailAddresses).toEqual([{ mail: 'old@example.org', type: 'home' }]);
    expect(errorsOf((m) => (m.sorAttributes.emailAddresses[0] = { address: 'nope' }))).toEqual({ 'sorAttributes.emailAddresses[0].address': ['Enter a valid email address.'] });
    ok(person({ email: '', extra: { emailAddresses: [{ mail: 'same@example.org', address: 'same@example.org' }] } }));
  });

  it('needs telephone numbers in E.164', () => {
    for (const bad of ['0201234567', '+0201234567', '+31 20 1234567', '+3', '+1234567890123456']) {
      expect(Object.keys(errorsOf((m) => (m.sorAttributes.telephoneNumbers[0].number = bad)))).toEqual(['sorAttributes.telephoneNumbers[0].number']);
    }
  });

  it('needs url to be an absolute URI', () => {
    for (const good of ['https://example.org', 'urn:isbn:0451450523', 'mailto:ada@example.org']) expect(isAbsoluteUri(good)).toBe(true);
    for (const bad of ['example.org', '//example.org/x', 'https://exa mple.org', '']) {
      expect(Object.keys(errorsOf((m) => (m.sorAttributes.urls[0].url = bad)))).toEqual(['sorAttributes.urls[0].url']);
    }
  });

  it('needs names[].given, identifiers[].identifier and adhoc[].tag', () => {
    const e = errorsOf((m) => {
      m.sorAttributes.names.push({ family: 'X' });
      m.sorAttributes.identifiers.push({ type: 'x' });
      m.sorAttributes.adhoc.push({ value: 'v' });
    });
    expect(e).toEqual({
      'sorAttributes.names[1].given': ['This field is required.'],
      'sorAttributes.identifiers[2].identifier': ['This field is required.'],
      'sorAttributes.adhoc[1].tag': ['This field is required.'],
    });
  });

  it('refuses a message with no name and no identifier', () => {
    const e = errorsOf((m) => {
      m.sorAttributes.names = [];
      m.sorAttributes.identifiers = [];
    });
    expect(e).toEqual({ sorAttributes: ['A message needs at least one name or one identifier.'] });
    ok({ sorAttributes: { identifiers: [{ identifier: 'x' }] } });
  });

  it('checks the type of every named member: strings, lists, objects, no nulls', () => {
    const e = errorsOf((m) => {
      m.sorAttributes.addresses[0].room = 314;
      m.sorAttributes.urls = 'https://example.org';
      m.sorAttributes.names[0].type = null;
      m.sorAttributes.roles[0].addresses = [null];
    });
    expect(e).toEqual({
      'sorAttributes.addresses[0].room': ['Not a valid string.'],
      'sorAttributes.urls': ['Expected a list of items but got type "str".'],
      'sorAttributes.names[0].type': ['This field may not be null.'],
      'sorAttributes.roles[0].addresses[0]': ['This field may not be null.'],
    });
  });

  it('refuses values longer than the columns that keep them', () => {
    const e = errorsOf((m) => {
      m.sorAttributes.roles[0].affiliation = 'a'.repeat(256);
      m.sorAttributes.roles[0].title = 't'.repeat(256);
    });
    expect(e).toEqual({
      'sorAttributes.roles[0].affiliation': ['Ensure this field has no more than 255 characters.'],
      'sorAttributes.roles[0].title': ['Ensure this field has no more than 255 characters.'],
    });
  });

  it('validates the addresses, adhoc and telephone numbers inside roles under the role path', () => {
    const e = errorsOf((m) => {
      m.sorAttributes.roles[0].adhoc = [{}];
      m.sorAttributes.roles[0].telephoneNumbers = [{ number: 'x' }];
    });
    expect(Object.keys(e).sort()).toEqual(['sorAttributes.roles[0].adhoc[0].tag', 'sorAttributes.roles[0].telephoneNumbers[0].number']);
  });

  it('ignores unknown members at every level', () => {
    const m = fullMessage();
    m.extension = { anything: [1, 2] };
    m.sorAttributes.favouriteColour = 'green';
    m.sorAttributes.roles[0].office = { building: 'B' };
    m.sorAttributes.names[0].nickname = 7;
    const v = ok(m);
    expect(v).not.toHaveProperty('extension');
    expect(v.sorAttributes).not.toHaveProperty('favouriteColour');
    expect(v.sorAttributes.roles[0]).not.toHaveProperty('office');
  });

  it('refuses what no database can keep: null characters and deep nesting, in unknown members too', () => {
    expect(errorsOf((m) => (m.sorAttributes.roles[0].title = 'a\u0000b'))).toEqual({ 'sorAttributes.roles[0].title': ['Null characters are not allowed.'] });
    expect(errorsOf((m) => (m.extra = { 'k\u0000': 1 }))).toEqual({ extra: ['Null characters are not allowed.'] });
    const deep = errorsOf((m) => (m.extension = JSON.parse('['.repeat(10000) + ']'.repeat(10000))));
    expect(deep).toEqual({ [`extension${'[0]'.repeat(31)}`]: ['Nested too deeply (more than 32 levels).'] });
    m32();
  });

  it('reports every error at once', () => {
    const e = errorsOf((m) => {
      m.meta.version = '0.9';
      m.returnUrl = 'nope';
      m.sorAttributes.roles[0].status = 'Z';
      m.sorAttributes.roles[0].rank = 'first';
      m.sorAttributes.emailAddresses[0].mail = 'x';
      m.sorAttributes.dateOfBirth = 'yesterday';
    });
    expect(Object.keys(e).sort()).toEqual([
      'meta.version',
      'returnUrl',
      'sorAttributes.dateOfBirth',
      'sorAttributes.emailAddresses[0].mail',
      'sorAttributes.roles[0].rank',
      'sorAttributes.roles[0].status',
    ]);
  });

  describe('refuses every message of the malformed corpus', () => {
    it.each(MALFORMED.map((c) => [c.name, c]))('%s', (_, c) => {
      const r = validateIdentityMessage(c.body);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(Object.keys(r.errors)).toContain(c.path);
    });
  });

  it('hashes messages by their canonical JSON, ignoring key order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: null }] })).toBe('{"a":[{"c":null,"d":2}],"b":1}');
    expect(messageHash({ x: 1, y: { a: 1, b: 2 } })).toBe(messageHash({ y: { b: 2, a: 1 }, x: 1 }));
    expect(messageHash({ x: 1 })).not.toBe(messageHash({ x: 2 }));
  });
});
