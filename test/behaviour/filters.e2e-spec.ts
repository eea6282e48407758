import { eachDatabase } from '../../src/core/testing/harness';

// One server per database for the filters that need no setting of their own: each test names
// its own objects (prefixes, distinct names), so they share it.
eachDatabase('filters', (t) => {
  describe('content type filters', () => {
    it('match models by app_label.model, and a value naming no model is a 400', async () => {
      await t().post('/api/extras/tags/', [{ name: 'ct-loc', content_types: ['dcim.location'] }, { name: 'ct-ten', content_types: ['tenancy.tenant'] }]).expect(201);
      const names = async (qs: string) => (await t().get(`/api/extras/tags/?name__isw=ct-&${qs}`).expect(200)).body.results.map((r: { name: string }) => r.name);
      expect(await names('content_types=dcim.location')).toEqual(['ct-loc']);
      expect(await names('content_types__ic=tenancy')).toEqual(['ct-ten']);
      const bad = await t().get('/api/extras/tags/?content_types=nope.model').expect(400);
      expect(bad.body).toEqual({ content_types: ['Select a valid choice. nope.model is not one of the available choices.'] });
    });
  });

  describe('created and last_updated filters', () => {
    it('select objects by when they were created or last changed, on every model', async () => {
      const a = (await t().post('/api/tenancy/tenants/', { name: 'ts-a' }).expect(201)).body;
      await new Promise((r) => setTimeout(r, 20));
      const b = (await t().post('/api/tenancy/tenants/', { name: 'ts-b' }).expect(201)).body;
      const names = async (qs: string) => (await t().get(`/api/tenancy/tenants/?name__isw=ts-&${qs}`).expect(200)).body.results.map((r: { name: string }) => r.name);
      const at = (s: string) => encodeURIComponent(s);
      expect(await names(`created__gte=${at(b.created)}`)).toEqual(['ts-b']);
      expect(await names(`created__lt=${at(b.created)}`)).toEqual(['ts-a']);
      expect(await names(`created=${at(a.created)}`)).toEqual(['ts-a']);
      await new Promise((r) => setTimeout(r, 20));
      const changed = (await t().patch(`/api/tenancy/tenants/${a.id}/`, { description: 'touched' }).expect(200)).body;
      expect(await names(`last_updated__gte=${at(changed.last_updated)}`)).toEqual(['ts-a']);
      expect(await names(`last_updated__lt=${at(changed.last_updated)}`)).toEqual(['ts-b']);
      expect((await t().get('/api/tenancy/tenants/?last_updated__gte=yesterday').expect(400)).body.last_updated__gte).toBeDefined();
      await t().get(`/api/extras/tags/?created__gte=${at(a.created)}`).expect(200);
    });
  });

  describe('case-insensitive lookups beyond ASCII', () => {
    it('fold Unicode letters the same way on every database', async () => {
      await t().post('/api/tenancy/tenants/', [{ name: 'École Straße' }, { name: 'ecole' }, { name: 'ΑΘΗΝΑ Δ' }]).expect(201);
      const names = async (k: string, v: string) => (await t().get(`/api/tenancy/tenants/?${k}=${encodeURIComponent(v)}`).expect(200)).body.results.map((r: { name: string }) => r.name);
      // The stored text itself always matches its own iexact.
      expect(await names('name__ie', 'École Straße')).toEqual(['École Straße']);
      expect(await names('name__ie', 'école straße')).toEqual(['École Straße']);
      expect(await names('name__ie', 'ÉCOLE STRASSE')).toEqual([]);
      expect(await names('name__ic', 'école')).toEqual(['École Straße']);
      expect(await names('name__isw', 'éc')).toEqual(['École Straße']);
      expect(await names('name__iew', 'STRASSE')).toEqual([]);
      expect(await names('name__ire', '^éc')).toEqual(['École Straße']);
      expect(await names('name__ic', 'αθηνα')).toEqual(['ΑΘΗΝΑ Δ']);
      expect(await names('name__nic', 'école')).toEqual(expect.not.arrayContaining(['École Straße']));
      expect(await names('q', 'ÉCOLE')).toEqual(['École Straße']);
    });
  });
});

eachDatabase(
  'unknown filters without STRICT_FILTERING',
  (t) => {
    it('are ignored, while malformed values of known filters are still a 400', async () => {
      await t().post('/api/tenancy/tenants/', [{ name: 'lax-a' }, { name: 'lax-b' }]).expect(201);
      const res = await t().get('/api/tenancy/tenants/?name__isw=lax-&no_such_filter=1&brief=1').expect(200);
      expect(res.body.results.map((r: { name: string }) => r.name)).toEqual(['lax-a', 'lax-b']);
      expect((await t().get('/api/tenancy/tenants/?created__gte=not-a-date').expect(400)).body).toHaveProperty('created__gte');
      expect((await t().get('/api/tenancy/tenants/?tenant_group=no-such-group').expect(400)).body).toHaveProperty('tenant_group');
    });
  },
  { env: { STRICT_FILTERING: 'false' } },
);
