import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Contacts, teams and contact associations as Nautobot 2.4 has them: the shared fields and
 * unique set, a team's contacts from either side, the associations' rules and messages
 * (exactly one of contact and team, the two unique sets, the seeded roles and statuses), the
 * `contacts`/`teams` filters of the models contacts may be associated with, a generic key to a
 * hidden object refused as not found, permission scoping, and associations deleted with
 * their object, contact or team.
 */
eachDatabase('contacts', (t) => {
  const post = async (path: string, body: object, token?: string) => (await t().post(path, body, token).expect(201)).body;
  const refuse = async (path: string, body: object, token?: string, status = 400) => (await t().post(path, body, token).expect(status)).body;
  const list = async (path: string, token?: string) => (await t().get(path, token).expect(200)).body.results as any[];
  const names = async (path: string, token?: string) => (await list(path, token)).map((r) => r.name ?? r.display).sort();
  const CA = '/api/extras/contact-associations/';

  let tenants: any[];
  let alice: any;
  let bob: any;
  let noc: any;
  beforeAll(async () => {
    tenants = await post('/api/tenancy/tenants/', ['acme', 'globex', 'hidden corp'].map((name) => ({ name })));
    alice = await post('/api/extras/contacts/', { name: 'Alice', phone: '555-0100', email: 'alice@example.com' });
    bob = await post('/api/extras/contacts/', { name: 'Bob' });
    noc = await post('/api/extras/teams/', { name: 'NOC', email: 'noc@example.com', contacts: [alice.id] });
  });

  it('seeds the reference roles and statuses for contact associations', async () => {
    expect(await names('/api/extras/roles/?content_types=extras.contactassociation')).toEqual(['Administrative', 'Billing', 'On Site', 'Support']);
    expect(await names('/api/extras/statuses/?content_types=extras.contactassociation')).toEqual(['Active', 'Primary', 'Secondary']);
    const roles = await list('/api/extras/roles/?name=On%20Site');
    expect(roles[0]).toMatchObject({ color: '111111' });
  });

  it('shows contacts and teams as the reference does, unique by name, phone and e-mail together', async () => {
    expect(alice).toMatchObject({ display: 'Alice (555-0100) (alice@example.com)', name: 'Alice', phone: '555-0100', email: 'alice@example.com', address: '', comments: '' });
    expect(bob).toMatchObject({ display: 'Bob', phone: '', email: '', teams: [] });
    expect(noc.contacts.map((c: any) => c.id)).toEqual([alice.id]);
    expect((await t().get(`/api/extras/contacts/${alice.id}/`).expect(200)).body.teams.map((x: any) => x.id)).toEqual([noc.id]);
    expect(await refuse('/api/extras/contacts/', { name: 'Alice', phone: '555-0100', email: 'alice@example.com' })).toEqual({ non_field_errors: ['The fields name, phone, email must make a unique set.'] });
    await post('/api/extras/contacts/', { name: 'Alice', phone: '555-0199', email: 'alice@example.com' }).then((c) => t().del(`/api/extras/contacts/${c.id}/`).expect(204));
    expect(await refuse('/api/extras/contacts/', { name: 'Carol', email: 'carol-at-example' })).toEqual({ email: ['Enter a valid email address.'] });
    // A contact's teams are the teams' contacts, written from either side.
    await t().patch(`/api/extras/contacts/${bob.id}/`, { teams: [noc.id] }).expect(200);
    expect((await t().get(`/api/extras/teams/${noc.id}/`).expect(200)).body.contacts.map((c: any) => c.id).sort()).toEqual([alice.id, bob.id].sort());
    expect(await names(`/api/extras/contacts/?teams=NOC`)).toEqual(['Alice', 'Bob']);
    expect(await names(`/api/extras/teams/?contacts=${bob.id}`)).toEqual(['NOC']);
    await t().patch(`/api/extras/teams/${noc.id}/`, { contacts: [alice.id] }).expect(200);
    expect((await t().get(`/api/extras/contacts/${bob.id}/`).expect(200)).body.teams).toEqual([]);
    expect(await names('/api/extras/contacts/?q=example.com')).toEqual(['Alice']);
  });

  it("associates exactly one contact or team with an object, with the reference's messages and unique sets", async () => {
    const base = { associated_object_type: 'tenancy.tenant', associated_object_id: tenants[0].id, role: 'Administrative', status: 'Active' };
    const a = await post(CA, { ...base, contact: alice.id });
    expect(a).toMatchObject({ display: `Contact Alice (555-0100) (alice@example.com) for ${tenants[0].id}`, associated_object_type: 'tenancy.tenant', associated_object_id: tenants[0].id, contact: { id: alice.id }, team: null, role: { object_type: 'extras.role' }, status: { object_type: 'extras.status' } });
    const b = await post(CA, { ...base, team: 'NOC', status: 'Primary' });
    expect(b.display).toBe(`Team contact NOC (noc@example.com) for ${tenants[0].id}`);
    expect(await refuse(CA, base)).toEqual({ non_field_errors: ['Either a contact or a team must be specified'] });
    expect(await refuse(CA, { ...base, contact: bob.id, team: noc.id })).toEqual({ non_field_errors: ['A contact and a team cannot be both specified at once'] });
    expect(await refuse(CA, { ...base, contact: alice.id })).toEqual({ non_field_errors: ['The fields associated_object_type, associated_object_id, contact, role must make a unique set.'] });
    expect(await refuse(CA, { ...base, team: noc.id })).toEqual({ non_field_errors: ['The fields associated_object_type, associated_object_id, team, role must make a unique set.'] });
    // Another role is another association.
    await post(CA, { ...base, contact: alice.id, role: 'Billing' });
    expect(await refuse(CA, { ...base, contact: alice.id, role: 'Manager' })).toEqual({ role: ['Related object not found using provided composite-key: Manager'] });
    expect(await refuse(CA, { ...base, associated_object_type: 'extras.contact', associated_object_id: bob.id, contact: alice.id })).toEqual({ associated_object_type: ['Invalid content type: extras.contact'] });
    expect(await refuse(CA, { contact: alice.id, role: 'Billing', status: 'Active' })).toEqual({ associated_object_type: ['This field is required.'] });
    expect((await t().get(`${CA}?associated_object_id=${tenants[0].id}`).expect(200)).body.count).toBe(3);
    expect((await t().get(`${CA}?team=NOC&status=Primary`).expect(200)).body.results.map((r: any) => r.id)).toEqual([b.id]);
  });

  it('filters the objects contacts may be associated with by contacts and teams, by id or name, and negated', async () => {
    const tenant = async (q: string) => (await list(`/api/tenancy/tenants/?${q}`)).map((r) => r.name).sort();
    await post(CA, { associated_object_type: 'tenancy.tenant', associated_object_id: tenants[1].id, contact: bob.id, role: 'Support', status: 'Active' });
    expect(await tenant('contacts=Alice')).toEqual(['acme']);
    expect(await tenant(`contacts=Alice&contacts=${bob.id}`)).toEqual(['acme', 'globex']);
    expect(await tenant('contacts__n=Alice')).toEqual(['globex', 'hidden corp']);
    expect(await tenant(`teams=${noc.id}`)).toEqual(['acme']);
    expect((await t().get('/api/tenancy/tenants/?contacts=Nobody').expect(400)).body).toEqual({ contacts: ['Select a valid choice. Nobody is not one of the available choices.'] });
    // Only the models that take contacts have the filters.
    expect((await t().get('/api/extras/contacts/?contacts=Alice').expect(400)).body).toEqual({ contacts: ['Unknown filter field'] });
  });

  it('refuses a generic key to an object the requester may not view as not found, and changes nothing', async () => {
    const writer = await t().userWith('contact-writer', [
      { types: ['extras.contactassociation'], actions: ['view', 'add'] },
      { types: ['extras.contact', 'extras.team', 'extras.role', 'extras.status'], actions: ['view'] },
      { types: ['tenancy.tenant'], actions: ['view'], constraints: { name__n: ['hidden corp'] } },
    ]);
    const before = (await t().get(CA).expect(200)).body.count;
    const body = { associated_object_type: 'tenancy.tenant', associated_object_id: tenants[2].id, contact: alice.id, role: 'Support', status: 'Active' };
    expect(await refuse(CA, body, writer)).toEqual({ associated_object_id: [`Related object not found using the provided attributes: {'pk': UUID('${tenants[2].id}')}`] });
    expect((await t().get(CA).expect(200)).body.count).toBe(before);
    const made = await post(CA, { ...body, associated_object_id: tenants[1].id }, writer);
    expect(made.associated_object_id).toBe(tenants[1].id);
  });

  it('scopes associations and the filters through them by the requester’s permissions', async () => {
    const viewer = await t().userWith('contact-viewer', [
      { types: ['extras.contactassociation'], actions: ['view'], constraints: { contact__name: 'Bob' } },
      { types: ['extras.contact'], actions: ['view'], constraints: { name: 'Bob' } },
      { types: ['tenancy.tenant'], actions: ['view'] },
    ]);
    const seen = await list(CA, viewer);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.contact?.id === bob.id)).toBe(true);
    // A hidden contact names nothing; a visible one filters only through visible associations.
    expect((await t().get('/api/tenancy/tenants/?contacts=Alice', viewer).expect(400)).body).toEqual({ contacts: ['Select a valid choice. Alice is not one of the available choices.'] });
    expect((await list('/api/tenancy/tenants/?contacts=Bob', viewer)).map((r) => r.name)).toEqual(['globex']);
    await t().get(`/api/extras/contacts/${alice.id}/`, viewer).expect(404);
  });

  it('deletes associations with their object, contact or team', async () => {
    const doomed = await post('/api/tenancy/tenants/', { name: 'doomed' });
    const team = await post('/api/extras/teams/', { name: 'Short-lived' });
    const base = { associated_object_type: 'tenancy.tenant', role: 'On Site', status: 'Active' };
    await post(CA, { ...base, associated_object_id: doomed.id, contact: alice.id });
    const kept = await post(CA, { ...base, associated_object_id: tenants[1].id, team: team.id });
    expect((await t().get(`${CA}?associated_object_id=${doomed.id}`).expect(200)).body.count).toBe(1);
    await t().del(`/api/tenancy/tenants/${doomed.id}/`).expect(204);
    expect((await t().get(`${CA}?associated_object_id=${doomed.id}`).expect(200)).body.count).toBe(0);
    await t().get(`${CA}${kept.id}/`).expect(200);
    await t().del(`/api/extras/teams/${team.id}/`).expect(204);
    await t().get(`${CA}${kept.id}/`).expect(404);
    const carol = await post('/api/extras/contacts/', { name: 'Carol' });
    const hers = await post(CA, { ...base, associated_object_id: tenants[1].id, contact: carol.id });
    await t().del(`/api/extras/contacts/${carol.id}/`).expect(204);
    await t().get(`${CA}${hers.id}/`).expect(404);
  });
});
