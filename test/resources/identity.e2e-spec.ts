import { describeResourceContract } from '../../src/core/testing/resource-contract';
import type { TestApp } from '../../src/core/testing/harness';
import { person, role } from '../identity/messages';

describeResourceContract({
  objectType: 'identity.identitysource',
  path: '/api/identity/sources/',
  make: (_, n) => ({ name: `Source ${n}`, slug: `source-${n}`, affiliation_groups: { staff: `Staff ${n}` }, role_groups: {}, grace_period_days: n }),
  update: () => ({ description: 'Changed', status_on_delete: 'GP', role_groups: { 'lab-1': 'Lab' } }),
  bulkUpdate: () => ({ enabled: false, grace_period_days: 7 }),
  invalid: () => ({ name: 'Bad', slug: 'not a slug', affiliation_groups: ['staff'] }),
  choices: { status_on_delete: ['D', 'S', 'GP'], link_match: ['username_and_email', 'username', 'email', 'username_or_email'] },
  notes: false,
  customFields: false,
});

/** Links of a few sources to many users: each n names a pair of its own (fixtures below 1000, the rest from 1000 on). */
describeResourceContract({
  objectType: 'identity.userlink',
  path: '/api/identity/user-links/',
  setup: async (t) => {
    const sources: string[] = [];
    const users: string[] = [];
    for (let i = 0; i < 6; i++) sources.push((await t.post('/api/identity/sources/', { name: `Link source ${i}`, slug: `link-source-${i}` }).expect(201)).body.id);
    for (let i = 0; i < 40; i++) users.push((await t.post('/api/users/users/', { username: `link-user-${i}` }).expect(201)).body.id);
    const root = (await t.post('/api/users/users/', { username: 'link-root', is_superuser: true }).expect(201)).body.id;
    return { sources, users, root };
  },
  make: (ctx, n) => (n < 1000 ? { source: ctx.sources[0], user: ctx.users[n % 10] } : { source: ctx.sources[1 + ((n - 1000) % 5)], user: ctx.users[10 + (Math.floor((n - 1000) / 5) % 30)] }),
  update: () => ({}),
  invalid: (ctx) => ({ source: ctx.sources[0], user: ctx.root }),
  choices: { origin: ['admin', 'created', 'matched', 'legacy'] },
  sortField: null,
  notes: false,
  customFields: false,
  neverExempt: true,
});

/** Pushes the n-th person of the contract source and returns what the API shows for it. */
async function pushPerson(t: TestApp, n: number) {
  const roles = [role(`staff-${n}`, 'staff', 'A', { rank: 2 }), role(`lab-${n}`, 'research', n % 2 ? 'S' : 'GP', { rank: 1 })];
  const res = await t.put(`/api/identity/sources/contract/identities/p${n}/`, person({ given: `Person${n}`, employeeNumber: `C${n}`, roles })).expect(201);
  return res.body;
}

const contractSource = async (t: TestApp) => {
  await t.post('/api/identity/sources/', { name: 'Contract', slug: 'contract', username_identifier_type: 'employeeNumber' }).expect(201);
  return {};
};

/** The read-only contract of an identity model, whose fixtures come from the intake endpoint. */
const readOnlyContract = (objectType: string, path: string, pick: (intakeBody: Record<string, any>) => string, sortField?: string) =>
  describeResourceContract({
    objectType,
    path,
    readOnly: true,
    setup: contractSource,
    seed: async (t, _, n) => (await t.get(`${path}${pick(await pushPerson(t, n))}/`).expect(200)).body,
    make: () => ({ name: 'refused' }),
    update: () => ({}),
    sortField,
    notes: false,
    customFields: false,
    neverExempt: true,
  });

readOnlyContract('identity.externalidentity', '/api/identity/external-identities/', (b) => b.id);
readOnlyContract('identity.externalidentityrole', '/api/identity/external-identity-roles/', (b) => b.roles[0].id, 'role_identifier');
