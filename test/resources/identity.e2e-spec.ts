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
  choices: { status_on_delete: ['D', 'S', 'GP'] },
  notes: false,
  customFields: false,
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
