import { eachDatabase } from '../../src/core/testing/harness';

eachDatabase('custom fields', (t) => {
  const cf = async (body: object) => (await t().post('/api/extras/custom-fields/', { content_types: ['tenancy.tenant'], ...body }).expect(201)).body;
  const tenant = async (name: string, custom_fields: object = {}) => (await t().post('/api/tenancy/tenants/', { name, custom_fields }).expect(201)).body;
  const names = async (qs: string) => (await t().get(`/api/tenancy/tenants/?limit=1000&${qs}`).expect(200)).body.results.map((x: any) => x.name).sort();

  beforeAll(async () => {
    await cf({ label: 'Circuit ID', key: 'circuit_id', type: 'text' });
    await cf({ label: 'Account', key: 'account', type: 'text', filter_logic: 'exact' });
    await cf({ label: 'Racks', key: 'racks', type: 'integer', validation_minimum: 0, validation_maximum: 100, default: 1 });
    await cf({ label: 'Managed', key: 'managed', type: 'boolean' });
    await cf({ label: 'Since', key: 'since', type: 'date' });
    await cf({ label: 'Portal', key: 'portal', type: 'url' });
    await cf({ label: 'Notes', key: 'notes_md', type: 'markdown', filter_logic: 'disabled' });
    await cf({ label: 'Extra', key: 'extra', type: 'json' });
    const tier = await cf({ label: 'Tier', key: 'tier', type: 'select' });
    const svc = await cf({ label: 'Services', key: 'services', type: 'multi-select' });
    for (const v of ['gold', 'silver', 'bronze']) await t().post('/api/extras/custom-field-choices/', { custom_field: tier.id, value: v }).expect(201);
    for (const v of ['transit', 'peering', 'colo']) await t().post('/api/extras/custom-field-choices/', { custom_field: svc.id, value: v }).expect(201);
    await tenant('Alpha', { circuit_id: 'CKT-ALPHA-01', account: 'A100', racks: 5, managed: true, since: '2020-01-15', portal: 'https://alpha.example.net', tier: 'gold', services: ['transit', 'peering'], extra: { vlan: 10 } });
    await tenant('Beta', { circuit_id: 'ckt-beta-02', account: 'b200', racks: 12, managed: false, since: '2022-06-01', tier: 'silver', services: ['colo'] });
    await tenant('Gamma', { circuit_id: null, racks: 40, tier: 'gold', services: ['peering'] });
  });

  it('shows every custom field of the model on each object, with defaults on create', async () => {
    const g = (await t().get('/api/tenancy/tenants/?name=Gamma').expect(200)).body.results[0];
    expect(Object.keys(g.custom_fields).sort()).toEqual(['account', 'circuit_id', 'extra', 'managed', 'notes_md', 'portal', 'racks', 'services', 'since', 'tier'].sort());
    expect(g.custom_fields.racks).toBe(40);
    const d = await tenant('Delta');
    expect(d.custom_fields.racks).toBe(1);
    expect(d.custom_fields.circuit_id).toBeNull();
  });

  it('validates values by type and choices, reporting non-field errors like the reference', async () => {
    const bad = [
      [{ racks: 'many' }, "Invalid value for custom field 'racks': Value must be an integer."],
      [{ racks: 101 }, "Invalid value for custom field 'racks': Value must not exceed 100"],
      [{ managed: 'perhaps' }, "Invalid value for custom field 'managed': Value must be true or false."],
      [{ since: '2020-13-45' }, "Invalid value for custom field 'since': Date values must be in the format YYYY-MM-DD."],
      [{ tier: 'platinum' }, "Invalid value for custom field 'tier': Invalid choice (platinum). Available choices are: bronze, gold, silver"],
      [{ services: ['transit', 'nope'] }, "Invalid value for custom field 'services': Invalid choice (nope). Available choices are: colo, peering, transit"],
      [{ portal: 'not a url' }, "Invalid value for custom field 'portal': Enter a valid URL."],
    ] as const;
    for (const [custom_fields, message] of bad) {
      const res = await t().post('/api/tenancy/tenants/', { name: 'Bad', custom_fields }).expect(400);
      expect(res.body).toEqual({ non_field_errors: [message] });
    }
    await t().get('/api/tenancy/tenants/?name=Bad').expect(200).then((r) => expect(r.body.count).toBe(0));
  });

  it('merges custom fields on PATCH and drops unknown keys', async () => {
    const a = (await t().get('/api/tenancy/tenants/?name=Alpha').expect(200)).body.results[0];
    const res = await t().patch(`/api/tenancy/tenants/${a.id}/`, { custom_fields: { racks: 6, no_such_field: 'x' } }).expect(200);
    expect(res.body.custom_fields.racks).toBe(6);
    expect(res.body.custom_fields.circuit_id).toBe('CKT-ALPHA-01');
    expect(res.body.custom_fields).not.toHaveProperty('no_such_field');
  });

  it('enforces required custom fields on create', async () => {
    const req = await cf({ label: 'Cost center', key: 'cost_center', type: 'text', required: true, content_types: ['dcim.location-type'.replace('-', '')] });
    const res = await t().post('/api/dcim/location-types/', { name: 'Needs CC' }).expect(400);
    expect(res.body).toEqual({ non_field_errors: ["Missing required custom field 'cost_center'."] });
    await t().post('/api/dcim/location-types/', { name: 'Has CC', custom_fields: { cost_center: 'CC-1' } }).expect(201);
    await t().del(`/api/extras/custom-fields/${req.id}/`).expect(204);
  });

  it('filters text loosely or exactly, with lookups taking several values', async () => {
    expect(await names('cf_circuit_id=alpha')).toEqual(['Alpha']);
    expect(await names('cf_account=b200')).toEqual(['Beta']);
    expect(await names('cf_account=B200')).toEqual([]);
    expect(await names('cf_circuit_id__isw=CKT&cf_circuit_id__isw=x')).toEqual(['Alpha', 'Beta']);
    expect(await names('cf_circuit_id__ie=CKT-BETA-02')).toEqual(['Beta']);
    expect(await names('cf_circuit_id__n=CKT-ALPHA-01')).toEqual(expect.arrayContaining(['Beta', 'Gamma']));
    expect(await names('cf_circuit_id__re=^CKT')).toEqual(['Alpha']);
    const many = await t().get('/api/tenancy/tenants/?cf_circuit_id=a&cf_circuit_id=b').expect(400);
    expect(Object.keys(many.body)).toEqual(['cf_circuit_id']);
  });

  it('filters integers, booleans, dates, selections and null', async () => {
    expect(await names('cf_racks=12')).toEqual(['Beta']);
    expect(await names('cf_racks__gte=12')).toEqual(['Beta', 'Gamma']);
    expect(await names('cf_racks__lt=12&cf_racks__gt=0')).toEqual(expect.arrayContaining(['Alpha']));
    expect(await names('cf_managed=true')).toEqual(['Alpha']);
    expect(await names('cf_managed=false')).toEqual(['Beta']);
    expect(await names('cf_since__gt=2021-01-01')).toEqual(['Beta']);
    expect(await names('cf_tier=gold')).toEqual(['Alpha', 'Gamma']);
    expect(await names('cf_tier=gold&cf_tier=silver')).toEqual(['Alpha', 'Beta', 'Gamma']);
    expect(await names('cf_tier__ic=OLD')).toEqual(['Alpha', 'Gamma']);
    expect(await names('cf_services=peering')).toEqual(['Alpha', 'Gamma']);
    expect(await names('cf_services=colo&cf_services=transit')).toEqual(['Alpha', 'Beta']);
    expect(await names('cf_services__n=peering')).not.toContain('Alpha');
    expect(await names('cf_circuit_id=null')).toEqual(expect.arrayContaining(['Gamma']));
    expect(await names('cf_extra=vlan')).toEqual(['Alpha']);
    await t().get('/api/tenancy/tenants/?cf_racks=ten').expect(400);
    await t().get('/api/tenancy/tenants/?cf_since=yesterday').expect(400);
  });

  it('offers no filter for disabled or unknown custom fields', async () => {
    expect((await t().get('/api/tenancy/tenants/?cf_notes_md=x').expect(400)).body).toEqual({ cf_notes_md: ['Unknown filter field'] });
    expect((await t().get('/api/tenancy/tenants/?cf_nope=x').expect(400)).body).toEqual({ cf_nope: ['Unknown filter field'] });
    expect((await t().get('/api/tenancy/tenants/?cf_racks__ic=1').expect(400)).body).toEqual({ cf_racks__ic: ['Unknown filter field'] });
  });

  it('removes the values of a deleted custom field, and of a model it no longer applies to', async () => {
    const temp = await cf({ label: 'Temporary', key: 'temporary', type: 'text', content_types: ['tenancy.tenant', 'dcim.location'] });
    const x = await tenant('Temp holder', { temporary: 'keep me' });
    await t().patch(`/api/extras/custom-fields/${temp.id}/`, { content_types: ['dcim.location'] }).expect(200);
    expect((await t().get(`/api/tenancy/tenants/${x.id}/`).expect(200)).body.custom_fields).not.toHaveProperty('temporary');
    await t().patch(`/api/extras/custom-fields/${temp.id}/`, { content_types: ['dcim.location', 'tenancy.tenant'] }).expect(200);
    expect((await t().get(`/api/tenancy/tenants/${x.id}/`).expect(200)).body.custom_fields.temporary).toBeNull();
    await t().del(`/api/extras/custom-fields/${temp.id}/`).expect(204);
    expect((await t().get(`/api/tenancy/tenants/${x.id}/`).expect(200)).body.custom_fields).not.toHaveProperty('temporary');
  });

  it('refuses a validation regex that is invalid or could tie up the server', async () => {
    const post = (validation_regex: string) => t().post('/api/extras/custom-fields/', { label: `Re ${validation_regex}`, key: `re_${Math.random().toString(36).slice(2, 8)}`, type: 'text', content_types: ['tenancy.tenant'], validation_regex });
    expect((await post('(').expect(400)).body).toEqual({ validation_regex: ['Enter a valid regular expression.'] });
    expect((await post('(a+)+$').expect(400)).body.validation_regex[0]).toMatch(/too costly/);
    await post('^[A-Z]{3}$').expect(201);
  });

  it('keeps key and type immutable and defaults valid', async () => {
    const f = await cf({ label: 'Immutable', key: 'immutable', type: 'text' });
    expect((await t().patch(`/api/extras/custom-fields/${f.id}/`, { type: 'integer' }).expect(400)).body).toHaveProperty('type');
    expect((await t().patch(`/api/extras/custom-fields/${f.id}/`, { key: 'other' }).expect(400)).body).toHaveProperty('key');
    expect((await t().post('/api/extras/custom-fields/', { label: 'Bad default', type: 'integer', default: 'x', content_types: ['tenancy.tenant'] }).expect(400)).body).toHaveProperty('default');
    const auto = await cf({ label: 'Auto Key Here', type: 'text' });
    expect(auto.key).toBe('auto_key_here');
  });

  it('refuses to delete a choice that objects use', async () => {
    const choices = (await t().get('/api/extras/custom-field-choices/?value=gold').expect(200)).body.results;
    await t().del(`/api/extras/custom-field-choices/${choices[0].id}/`).expect(409);
  });
});
