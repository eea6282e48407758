import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Metadata types, their choices and object metadata as Nautobot 2.4 has them: a type's data
 * type fixed once created, choices only for select types, values checked (and stored) as the
 * data type says with the reference's messages, contact-or-team metadata, the overlap rule of
 * scoped fields, a generic key to a hidden object refused as not found, permission scoping, and
 * metadata deleted with its object while a type, contact or team in use is protected.
 */
eachDatabase('object metadata', (t) => {
  const post = async (path: string, body: object, token?: string) => (await t().post(path, body, token).expect(201)).body;
  const refuse = async (path: string, body: object, token?: string) => (await t().post(path, body, token).expect(400)).body;
  const OM = '/api/extras/object-metadata/';
  const types: Record<string, any> = {};
  let tenant: any;
  let other: any;
  let contact: any;
  let team: any;
  const on = (type: string, body: object, scoped: string[] = [`f_${Math.random().toString(36).slice(2, 8)}`]) => ({
    metadata_type: types[type].id,
    assigned_object_type: 'tenancy.tenant',
    assigned_object_id: tenant.id,
    scoped_fields: scoped,
    ...body,
  });
  const stored = async (type: string, value: unknown) => (await post(OM, on(type, { value }))).value;
  const message = async (type: string, value: unknown) => (await refuse(OM, on(type, { value }))).non_field_errors;

  beforeAll(async () => {
    [tenant, other] = await post('/api/tenancy/tenants/', [{ name: 'Described' }, { name: 'Secret tenant' }]);
    contact = await post('/api/extras/contacts/', { name: 'Owner', email: 'owner@example.com' });
    team = await post('/api/extras/teams/', { name: 'Owners' });
    const made = await post(
      '/api/extras/metadata-types/',
      ['text', 'integer', 'float', 'boolean', 'date', 'datetime', 'select', 'multi-select', 'json', 'contact-or-team', 'url'].map((data_type) => ({ name: `MD ${data_type}`, data_type, content_types: ['tenancy.tenant'] })),
    );
    for (const m of made) types[m.data_type.value] = m;
    await post('/api/extras/metadata-choices/', [
      { metadata_type: types.select.id, value: 'gold', weight: 10 },
      { metadata_type: types.select.id, value: 'bronze', weight: 30 },
      { metadata_type: types.select.id, value: 'silver', weight: 20 },
      { metadata_type: types['multi-select'].id, value: 'a' },
      { metadata_type: types['multi-select'].id, value: 'b' },
    ]);
  });

  it('keeps a data type once created and offers choices only on select types', async () => {
    expect(types.float).toMatchObject({ data_type: { value: 'float', label: 'Floating point number' }, content_types: ['tenancy.tenant'] });
    expect((await t().patch(`/api/extras/metadata-types/${types.text.id}/`, { data_type: 'integer' }).expect(400)).body).toEqual({ data_type: ['Type cannot be changed once created'] });
    expect(await refuse('/api/extras/metadata-types/', { name: 'x', data_type: 'colour', content_types: ['tenancy.tenant'] })).toEqual({ data_type: ['colour is not a valid choice.'] });
    expect(await refuse('/api/extras/metadata-types/', { name: 'x', data_type: 'text', content_types: ['extras.objectmetadata'] })).toEqual({ content_types: ['Invalid content type: extras.objectmetadata'] });
    expect((await refuse('/api/extras/metadata-choices/', { metadata_type: types.text.id, value: 'nope' })).metadata_type).toHaveLength(1);
    expect(await refuse('/api/extras/metadata-choices/', { metadata_type: types.select.id, value: 'gold' })).toEqual({ non_field_errors: ['The fields metadata_type, value must make a unique set.'] });
    const choice = (await t().get(`/api/extras/metadata-choices/?metadata_type=${types.select.id}&value=gold`).expect(200)).body.results[0];
    expect(choice).toMatchObject({ display: 'gold', weight: 10 });
    expect((await t().patch(`/api/extras/metadata-choices/${choice.id}/`, { metadata_type: types['multi-select'].id }).expect(400)).body).toEqual({ metadata_type: ['Cannot be changed once created'] });
  });

  it('checks each value against its data type and stores it as the type reads it', async () => {
    expect(await stored('text', 'hello')).toBe('hello');
    expect(await message('text', 5)).toEqual(['Value must be a string']);
    expect(await stored('integer', '12')).toBe(12);
    expect(await stored('integer', 7.9)).toBe(7);
    expect(await message('integer', 'twelve')).toEqual(['Value must be an integer.']);
    expect(await stored('float', '2.5')).toBe(2.5);
    expect(await message('float', 'x')).toEqual(['Value must be a float.']);
    expect(await stored('boolean', 'yes')).toBe(true);
    expect(await stored('boolean', 0)).toBe(false);
    expect(await message('boolean', 'maybe')).toEqual(['Value must be true or false.']);
    expect(await stored('date', '2024-02-29')).toBe('2024-02-29');
    expect(await message('date', '2023-02-29')).toEqual(['Date values must be in the format YYYY-MM-DD.']);
    expect(await message('date', 20240101)).toEqual(['Value must be a date or str object.']);
    expect(await stored('datetime', '2024-05-01T10:00:00')).toBe('2024-05-01T10:00:00+0000');
    expect(await stored('datetime', '2024-05-01T10:00:00+02:00')).toBe('2024-05-01T10:00:00+02:00');
    expect(await message('datetime', '2024-05-01 10:00')).toEqual(["Datetime values must be in the following formats ['YYYY-MM-DDTHH:MM:SS', 'YYYY-MM-DDTHH:MM:SS(+,-)zzzz', 'YYYY-MM-DDTHH:MM:SS(+,-)zz:zz']"]);
    expect(await stored('select', 'silver')).toBe('silver');
    expect(await message('select', 'platinum')).toEqual(['Invalid choice (platinum). Available choices are: gold, silver, bronze']);
    expect(await stored('multi-select', 'a,b')).toEqual(['a', 'b']);
    expect(await stored('multi-select', ['b'])).toEqual(['b']);
    expect(await message('multi-select', ['a', 'z'])).toEqual(["Invalid choice(s) (['a', 'z']). Available choices are: a, b"]);
    expect(await stored('json', { nested: [1, 2] })).toEqual({ nested: [1, 2] });
    expect(await message('json', null)).toEqual(['value is a required field that cannot be empty for metadata type json.']);
    expect(await message('text', undefined)).toEqual(['value is a required field that cannot be empty for metadata type text.']);
    // A value written by PATCH is checked and stored the same way.
    const m = await post(OM, on('integer', { value: 1 }));
    expect((await t().patch(`${OM}${m.id}/`, { value: '41' }).expect(200)).body.value).toBe(41);
    expect((await t().patch(`${OM}${m.id}/`, { value: 'x' }).expect(400)).body).toEqual({ non_field_errors: ['Value must be an integer.'] });
    expect((await t().patch(`${OM}${m.id}/`, { metadata_type: types.float.id }).expect(400)).body).toEqual({ metadata_type: ['Cannot be changed once created'] });
    expect((await t().get(`${OM}?value=41&metadata_type=${types.integer.id}`).expect(200)).body.results.map((r: any) => r.id)).toEqual([m.id]);
  });

  it('takes a contact or a team, and no value, for the contact-or-team type', async () => {
    const owned = await post(OM, on('contact-or-team', { contact: contact.id }));
    expect(owned).toMatchObject({ value: null, contact: { id: contact.id }, team: null, assigned_object_type: 'tenancy.tenant', assigned_object_id: tenant.id });
    expect(owned.assigned_object).toMatchObject({ id: tenant.id, object_type: 'tenancy.tenant' });
    expect(await refuse(OM, on('contact-or-team', {}))).toEqual({ non_field_errors: ['Either a contact or a team must be specified'] });
    expect(await refuse(OM, on('contact-or-team', { contact: contact.id, team: team.id }))).toEqual({ non_field_errors: ['A contact and a team cannot be both specified at once'] });
    expect(await refuse(OM, on('contact-or-team', { team: team.id, value: 'boss' }))).toEqual({ non_field_errors: ['boss is an invalid value for metadata type data type contact-or-team'] });
    expect((await t().get(`${OM}?contact=Owner`).expect(200)).body.results.map((r: any) => r.id)).toEqual([owned.id]);
    expect((await t().get(`${OM}?q=owner&metadata_type=${types['contact-or-team'].id}`).expect(200)).body.count).toBe(1);
  });

  it('refuses a type not enabled for the object and overlapping scoped fields, with the reference messages', async () => {
    const location = await post('/api/extras/metadata-types/', { name: 'MD location only', data_type: 'text', content_types: ['dcim.location'] });
    expect(await refuse(OM, { ...on('text', { value: 'x' }), metadata_type: location.id })).toEqual({ non_field_errors: ['Assigned Object Type Tenancy | tenant is not allowed by Metadata Type MD location only'] });
    const url = (scoped: string[]) => ({ metadata_type: types.url.id, assigned_object_type: 'tenancy.tenant', assigned_object_id: other.id, scoped_fields: scoped, value: 'https://example.com/' });
    await post(OM, url(['name', 'description']));
    expect(await refuse(OM, url(['description', 'comments', 'name']))).toEqual({
      scoped_fields: ["There are other Object Metadata instances of metadata type MD url scoping the same fields {'description', 'name'} for Secret tenant"],
    });
    expect(await refuse(OM, url([]))).toEqual({
      scoped_fields: ['This Object Metadata MD url - Secret tenant - https://example.com/ scoping all the fields for Secret tenant has overlapped with the scoped fields of other Object Metadata instances.'],
    });
    await post(OM, url(['comments']));
    // Two in one request are checked against each other too.
    expect((await t().post(OM, [url(['tenant_group']), url(['tenant_group'])]).expect(400)).body[1]).toEqual({
      scoped_fields: ["There are other Object Metadata instances of metadata type MD url scoping the same fields {'tenant_group'} for Secret tenant"],
    });
    const everything = await post(OM, { ...url([]), metadata_type: types.text.id, value: 'all' });
    expect(await refuse(OM, { ...url(['name']), metadata_type: types.text.id })).toEqual({
      scoped_fields: ['There are other Object Metadata instances of metadata type MD text scoping all the fields for Secret tenant'],
    });
    expect(everything.scoped_fields).toEqual([]);
    expect(await refuse(OM, { ...url(['name']), scoped_fields: 'name' })).toEqual({ scoped_fields: ['Expected a list of items but got type "str".'] });
  });

  it('refuses a generic key to an object the requester may not view as not found, and scopes reads', async () => {
    const writer = await t().userWith('metadata-writer', [
      { types: ['extras.objectmetadata'], actions: ['view', 'add'], constraints: { assigned_object_id: tenant.id } },
      { types: ['extras.metadatatype'], actions: ['view'] },
      { types: ['tenancy.tenant'], actions: ['view'], constraints: { name: 'Described' } },
    ]);
    const body = { metadata_type: types.text.id, assigned_object_type: 'tenancy.tenant', assigned_object_id: other.id, scoped_fields: ['only_here'], value: 'only-here' };
    expect(await refuse(OM, body, writer)).toEqual({ assigned_object_id: [`Related object not found using the provided attributes: {'pk': UUID('${other.id}')}`] });
    expect((await t().get(`${OM}?assigned_object_id=${other.id}&value=only-here`).expect(200)).body.count).toBe(0);
    const seen = (await t().get(OM, writer).expect(200)).body.results as any[];
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.assigned_object_id === tenant.id)).toBe(true);
  });

  it('goes with its object; a type, contact or team in use is protected', async () => {
    const doomed = await post('/api/tenancy/tenants/', { name: 'Doomed' });
    const owner = await post('/api/extras/contacts/', { name: 'Leaving' });
    const m = await post(OM, { ...on('contact-or-team', { contact: owner.id }), assigned_object_id: doomed.id });
    expect((await t().del(`/api/extras/contacts/${owner.id}/`).expect(409)).body.detail).toMatch(/^Unable to delete object\. 1 dependent objects were found: /);
    expect((await t().del(`/api/extras/metadata-types/${types['contact-or-team'].id}/`).expect(409)).body.detail).toMatch(/^Unable to delete object\./);
    await t().del(`/api/tenancy/tenants/${doomed.id}/`).expect(204);
    await t().get(`${OM}${m.id}/`).expect(404);
    await t().del(`/api/extras/contacts/${owner.id}/`).expect(204);
    // A type's choices go with it.
    const select = await post('/api/extras/metadata-types/', { name: 'MD short-lived', data_type: 'select', content_types: ['tenancy.tenant'] });
    await post('/api/extras/metadata-choices/', { metadata_type: select.id, value: 'one' });
    await t().del(`/api/extras/metadata-types/${select.id}/`).expect(204);
    expect((await t().get(`/api/extras/metadata-choices/?value=one`).expect(200)).body.count).toBe(0);
  });
});
