import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Computed fields as Nautobot 2.4 shows them: definitions with the reference's fields and rules
 * (key from the label, key format and immutability, the template checked on save), and
 * `computed_fields` with include=computed_fields: templates over `obj` (its fields, related
 * objects within the requester's view, custom fields), the fallback value for a failed render,
 * the sandbox's bounds, and the cost of a page.
 */
eachDatabase(
  'computed fields',
  (t) => {
    const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
    const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
    const computed = async (body: object) => post('/api/extras/computed-fields/', { content_type: 'tenancy.tenant', ...body });
    const cfOf = async (id: string, token?: string) => (await t().get(`/api/tenancy/tenants/${id}/?include=computed_fields`, token).expect(200)).body.computed_fields;
    const made: string[] = [];
    /** Computed fields of one test only: removed after it. */
    afterEach(async () => {
      if (made.length) await t().del('/api/extras/computed-fields/', made.splice(0).map((id) => ({ id }))).expect(204);
    });
    const field = async (body: object) => {
      const c = await computed(body);
      made.push(c.id);
      return c;
    };
    let parent: any;
    let group: any;
    let hidden: any;
    let tenant: any;

    beforeAll(async () => {
      await post('/api/extras/custom-fields/', { label: 'Site code', key: 'site_code', type: 'text', content_types: ['tenancy.tenant'] });
      parent = await post('/api/tenancy/tenant-groups/', { name: 'Customers' });
      group = await post('/api/tenancy/tenant-groups/', { name: 'Retail', parent: parent.id });
      hidden = await post('/api/tenancy/tenant-groups/', { name: 'Secret' });
      tenant = await post('/api/tenancy/tenants/', { name: 'Shop', tenant_group: group.id, custom_fields: { site_code: 'AMS' } });
    });

    it('keeps the reference fields and rules of a definition', async () => {
      const c = await field({ label: 'Shop Label-2', template: '{{ obj.name }}' });
      expect(c).toMatchObject({
        content_type: 'tenancy.tenant',
        key: 'shop_label_2',
        label: 'Shop Label-2',
        display: 'Shop Label-2',
        grouping: '',
        description: '',
        template: '{{ obj.name }}',
        fallback_value: '',
        weight: 100,
        advanced_ui: false,
        object_type: 'extras.computedfield',
        natural_slug: expect.any(String),
        notes_url: expect.stringContaining(`/api/extras/computed-fields/${c.id}/notes/`),
      });
      expect((await refuse('/api/extras/computed-fields/', { content_type: 'tenancy.tenant', label: 'Bad', key: '1st-key', template: 'x' })).key).toEqual([
        'This key is not Python/GraphQL safe. Please do not start the key with a digit and do not use hyphens or whitespace',
      ]);
      expect((await t().patch(`/api/extras/computed-fields/${c.id}/`, { key: 'other_key' }).expect(400)).body.key).toEqual(['Key cannot be changed once created']);
      expect((await refuse('/api/extras/computed-fields/', { content_type: 'tenancy.tenant', label: 'Broken', template: '{% if obj.name %}open' })).template[0]).toMatch(/^Template syntax error: /);
      expect((await refuse('/api/extras/computed-fields/', { content_type: 'tenancy.tenant', label: 'Filtered', template: '{{ obj.name | no_such_filter }}' })).template[0]).toMatch(/^Template syntax error: .*no_such_filter/);
      expect((await refuse('/api/extras/computed-fields/', { content_type: 'dcim.nothing', label: 'Nowhere', template: 'x' })).content_type).toEqual(['Invalid content type: dcim.nothing']);
      expect((await refuse('/api/extras/computed-fields/', { content_type: 'tenancy.tenant', label: 'Shop Label-2', key: 'again', template: 'x' })).non_field_errors).toEqual([
        'The fields content_type, label must make a unique set.',
      ]);
      expect((await refuse('/api/extras/computed-fields/', { content_type: 'tenancy.tenant', label: 'Long', template: 'x'.repeat(501) })).template).toEqual([
        'Ensure this field has no more than 500 characters.',
      ]);
      // Keys from labels in one bulk create: each its own, before uniqueness is checked.
      const bulk = await post('/api/extras/computed-fields/', [
        { content_type: 'tenancy.tenant', label: 'Bulk one', template: 'x' },
        { content_type: 'tenancy.tenant', label: 'Bulk two', template: 'y' },
      ]);
      made.push(...bulk.map((b: any) => b.id));
      expect(bulk.map((b: any) => b.key)).toEqual(['bulk_one', 'bulk_two']);
      await t().patch(`/api/extras/computed-fields/${c.id}/`, { template: '{% for %}' }).expect(400);
      expect((await t().get(`/api/extras/computed-fields/${c.id}/`).expect(200)).body.template).toBe('{{ obj.name }}');
    });

    it('filters definitions as the reference does', async () => {
      const a = await field({ label: 'Filter A', template: '{{ obj.name }}', grouping: 'ops', weight: 10 });
      const b = await field({ content_type: 'tenancy.tenantgroup', label: 'Filter B', template: 'needle {{ obj.name }}', fallback_value: 'fb' });
      const keys = async (q: string) => (await t().get(`/api/extras/computed-fields/?${q}`).expect(200)).body.results.map((r: any) => r.key);
      expect(await keys('content_type=tenancy.tenantgroup')).toEqual([b.key]);
      expect(await keys(`key=${a.key}`)).toEqual([a.key]);
      expect(await keys('grouping=ops')).toEqual([a.key]);
      expect(await keys('weight=10')).toEqual([a.key]);
      expect(await keys('q=needle')).toEqual([b.key]);
      expect(await keys('fallback_value=fb')).toEqual([b.key]);
      expect(await keys('q=tenantgroup')).toEqual([b.key]);
    });

    it('renders templates over the object, its related objects and its custom fields', async () => {
      await field({ label: 'Where', template: '{{ obj.name }} in {{ obj.tenant_group.name }} under {{ obj.tenant_group.parent.name | upcase }}', weight: 1 });
      await field({ label: 'Code', template: '{% if obj.cf.site_code %}{{ obj.cf.site_code | downcase }}{% else %}none{% endif %}-{{ obj.custom_field_data.site_code }}', weight: 2 });
      await field({ label: 'Loop', template: '{% for i in (1..3) %}{{ i }}{% endfor %} {{ obj.tenant_group_id }}', weight: 3 });
      expect(await cfOf(tenant.id)).toEqual({ where: 'Shop in Retail under CUSTOMERS', code: 'ams-AMS', loop: `123 ${group.id}` });
      // Opt-in on GET, always on write responses.
      expect((await t().get(`/api/tenancy/tenants/${tenant.id}/`).expect(200)).body).not.toHaveProperty('computed_fields');
      const written = (await t().patch(`/api/tenancy/tenants/${tenant.id}/`, { description: 'x' }).expect(200)).body;
      expect(written.computed_fields).toEqual({ where: 'Shop in Retail under CUSTOMERS', code: 'ams-AMS', loop: `123 ${group.id}` });
      const list = (await t().get('/api/tenancy/tenants/?name=Shop&include=computed_fields').expect(200)).body.results;
      expect(list[0].computed_fields.where).toBe('Shop in Retail under CUSTOMERS');
      // CSV leaves them out, as the reference's export does.
      const csv = await t().get('/api/tenancy/tenants/?name=Shop&include=computed_fields&format=csv').expect(200);
      expect(csv.text.split('\n')[0]).toContain('cf_site_code');
      expect(csv.text).not.toMatch(/computed_fields|Shop in Retail/);
      // Other models: empty.
      expect((await t().get(`/api/tenancy/tenant-groups/${group.id}/?include=computed_fields`).expect(200)).body.computed_fields).toEqual({});
      // Definitions changed: seen at once.
      await t().patch(`/api/extras/computed-fields/${made[0]}/`, { template: 'changed {{ obj.name }}' }).expect(200);
      expect((await cfOf(tenant.id)).where).toBe('changed Shop');
    });

    it('shows the fallback value when a render fails, and bounds every render', async () => {
      await field({ label: 'Range', template: '{% for i in (1..100000000) %}{{ i }}{% endfor %}', fallback_value: 'too big' });
      await field({ label: 'Output', template: '{% for i in (1..2000) %}xxxxxxxxxxxxxxxxxxxx{% endfor %}', fallback_value: 'too long' });
      await field({ label: 'Nested', template: '{% for i in (1..900000) %}{% for j in (1..900000) %}{% endfor %}{% endfor %}', fallback_value: 'too slow' });
      await field({ label: 'Escape', template: '{{ obj.constructor }}|{{ obj.__proto__ }}|{{ obj.name.constructor }}|{{ obj["constructor"] }}|{{ process }}', fallback_value: 'escaped' });
      const started = Date.now();
      expect(await cfOf(tenant.id)).toEqual({ range: 'too big', output: 'too long', nested: 'too slow', escape: '||||' });
      expect(Date.now() - started).toBeLessThan(5000);
      // Code is refused when saved: Liquid calls nothing.
      await refuse('/api/extras/computed-fields/', { content_type: 'tenancy.tenant', label: 'Call', template: '{{ obj.constructor.constructor("return process")() }}' });
      await refuse('/api/extras/computed-fields/', { content_type: 'tenancy.tenant', label: 'Require', template: '{{ require("child_process").execSync("id") }}' });
      // No file is reachable: includes find nothing.
      expect((await refuse('/api/extras/computed-fields/', { content_type: 'tenancy.tenant', label: 'Include', template: '{% include "/etc/passwd" %}' })).template[0]).toMatch(/^Template syntax error: /);
    });

    it('shows a related object the requester may not view as empty', async () => {
      const other = await post('/api/tenancy/tenants/', { name: 'Vault', tenant_group: hidden.id });
      await field({ label: 'Group', template: '[{{ obj.tenant_group.name }}]{% if obj.tenant_group == nil %} none{% endif %}' });
      const reader = await t().userWith('cf-reader', [
        { types: ['tenancy.tenant'], actions: ['view'] },
        { types: ['tenancy.tenantgroup'], actions: ['view'], constraints: { name__in: ['Retail', 'Customers'] } },
      ]);
      expect(await cfOf(tenant.id, reader)).toEqual({ group: '[Retail]' });
      expect(await cfOf(other.id, reader)).toEqual({ group: '[] none' });
      expect(await cfOf(other.id)).toEqual({ group: '[Secret]' });
    });

    it('renders a page in a bounded number of statements', async () => {
      const batch = await post(
        '/api/tenancy/tenants/',
        Array.from({ length: 60 }, (_, i) => ({ name: `p${String(i).padStart(2, '0')}`, tenant_group: i % 2 ? group.id : hidden.id, custom_fields: { site_code: `S${i}` } })),
      );
      expect(batch).toHaveLength(60);
      await field({ label: 'Page', template: '{{ obj.name }}/{{ obj.tenant_group.name }}/{{ obj.tenant_group.parent.name }}/{{ obj.cf.site_code }}' });
      const cost = async (limit: number, include: boolean) => {
        let body: any;
        const n = await t().countStatements(async () => {
          body = (await t().get(`/api/tenancy/tenants/?name__isw=p&limit=${limit}${include ? '&include=computed_fields' : ''}`).expect(200)).body;
        });
        expect(body.results).toHaveLength(limit);
        return { n, body };
      };
      // The first reads count their total apart and fill the definitions' cache.
      await cost(60, true);
      const plain = await cost(60, false);
      const [one, all] = [await cost(1, true), await cost(60, true)];
      expect(all.n).toBe(one.n);
      // Two statements more than the plain page: the tenant groups, then their parents.
      expect(all.n).toBe(plain.n + 2);
      for (const r of all.body.results) {
        const i = Number(r.name.slice(1));
        expect(r.computed_fields).toEqual({ page: `${r.name}/${i % 2 ? 'Retail/Customers' : 'Secret/'}/S${i}` });
      }
      // Rows that agree on what a template reads share a render; those that differ do not.
      await field({ label: 'Shared', template: '{{ obj.tenant_group.name }}:{{ obj.cf.site_code.size }}:{{ obj.cf.site_code.first }}' });
      const shared = (await cost(60, true)).body.results;
      for (const r of shared) {
        const i = Number(r.name.slice(1));
        expect(r.computed_fields.shared).toBe(`${i % 2 ? 'Retail' : 'Secret'}:${`S${i}`.length}:`);
      }
      await t().del('/api/tenancy/tenants/', batch.map((b: any) => ({ id: b.id }))).expect(204);
    });
  },
  { env: { CREDENTIAL_CACHE: 'false' } },
);
