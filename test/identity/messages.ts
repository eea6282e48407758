/** Messages for the identity intake tests: one valid person, and builders for variations. */

type Obj = Record<string, any>;

export interface PersonOptions {
  given?: string;
  family?: string;
  email?: string;
  employeeNumber?: string;
  roles?: Obj[];
  extra?: Obj;
}

export const role = (roleIdentifier: string, affiliation: string, status = 'A', extra: Obj = {}): Obj => ({ roleIdentifier, affiliation, status, ...extra });

/** A complete, valid message with every member the spec names. */
export function fullMessage(): Obj {
  return {
    meta: { version: '1.0.0', objectType: 'externalIdentity' },
    returnUrl: 'https://enroll.example.org/petitions/42?step=done',
    sorAttributes: {
      meta: { id: 'hr-record-42' },
      addresses: [{ country: 'NL', language: 'nl', locality: 'Amsterdam', postalCode: '1012 AB', region: 'NH', room: '3.14', streetAddress: 'Dam 1', type: 'office' }],
      adhoc: [{ tag: 'badge', value: 'B-77' }],
      dateOfBirth: '1990-02-28',
      emailAddresses: [{ mail: 'Ada.Lovelace@example.org', type: 'official', verified: true }],
      identifiers: [{ identifier: 'E1001', type: 'employeeNumber' }, { identifier: 'alovelace', type: 'network' }],
      names: [{ given: 'Ada', family: 'Lovelace', language: 'en', middle: 'King', prefix: 'Dr.', suffix: 'PhD', type: 'official' }],
      telephoneNumbers: [{ number: '+31201234567', type: 'office' }],
      urls: [{ url: 'https://example.org/~ada', type: 'personal' }],
      roles: [
        {
          affiliation: 'staff',
          roleIdentifier: 'staff-1',
          status: 'A',
          rank: 1,
          title: 'Engineer',
          organization: 'Example',
          department: 'Networks',
          managerIdentifier: 'E0001',
          sponsorIdentifier: 'E0002',
          validFrom: '2020-01-01T00:00:00Z',
          validThrough: '2040-01-01T00:00:00+01:00',
          addresses: [{ locality: 'Utrecht' }],
          adhoc: [{ tag: 'cost-center', value: 'CC-9' }],
          telephoneNumbers: [{ number: '+31301234567' }],
        },
      ],
    },
  };
}

/** A small valid message for one person. */
export function person(o: PersonOptions = {}): Obj {
  const given = o.given ?? 'Grace';
  return {
    meta: { version: '1.0.0', objectType: 'externalIdentity' },
    sorAttributes: {
      names: [{ given, family: o.family ?? 'Hopper' }],
      emailAddresses: o.email === '' ? [] : [{ mail: o.email ?? `${given.toLowerCase()}@example.org` }],
      identifiers: o.employeeNumber ? [{ identifier: o.employeeNumber, type: 'employeeNumber' }] : [],
      roles: o.roles ?? [role('staff-1', 'staff')],
      ...(o.extra ?? {}),
    },
  };
}
