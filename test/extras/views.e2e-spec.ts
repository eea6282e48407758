import { eachDatabase } from '../../src/core/testing/harness';
import { eventually } from '../support/outside';

/**
 * Saved views, user saved view associations, export templates and custom links as Nautobot 2.4
 * has them (issue 21), and what the contract cannot know: the owner of a saved view, one global
 * default per view, the association's view name, templates checked when saved, and `?export=` on
 * a list: the filtered rows the requester may view, the reference's headers, a clear 4xx for a
 * template that fails or runs away, and a bounded number of statements.
 */
eachDatabase('saved views, export templates and custom links', (t) => {
  const post = async (path: string, body: object, token?: string) => (await t().post(path, body, token).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const get = async (path: string, token?: string) => (await t().get(path, token).expect(200)).body;

  describe('saved views', () => {
    it('belong to the user who saves them, unique by owner, name and view', async () => {
      const other = await post('/api/users/users/', { username: 'sv-other' });
      const sv = await post('/api/extras/saved-views/', { name: 'Racks', view: 'dcim:rack_list', owner: other.id, config: { per_page: 25 } });
      const admin = (await get('/api/users/users/?username=admin')).results[0];
      expect(sv).toMatchObject({
        object_type: 'extras.savedview',
        display: 'admin - dcim:rack_list - Racks',
        owner: { id: admin.id, object_type: 'users.user' },
        name: 'Racks',
        view: 'dcim:rack_list',
        config: { per_page: 25 },
        is_global_default: false,
        is_shared: true,
      });
      expect(await refuse('/api/extras/saved-views/', { name: 'Racks', view: 'dcim:rack_list' })).toEqual({ non_field_errors: ['The fields owner, name, view must make a unique set.'] });
      expect(await refuse('/api/extras/saved-views/', { name: 'Bad', view: 'dcim:rack_list', config: [1] })).toEqual({ config: ['Saved view config must be a JSON object.'] });
      expect(await refuse('/api/extras/saved-views/', { name: 'No view' })).toEqual({ view: ['This field is required.'] });
      // Another user's view of the same name is theirs.
      const tok = await t().userWith('sv-writer', [{ types: ['extras.savedview'], actions: ['add', 'view'] }]);
      const theirs = await post('/api/extras/saved-views/', { name: 'Racks', view: 'dcim:rack_list' }, tok);
      expect((await get(`/api/extras/saved-views/${theirs.id}/`)).display).toBe('sv-writer - dcim:rack_list - Racks');
      // The writer may not view users: their own name is not lent to the display they are shown.
      expect(theirs.display).toBe(' - dcim:rack_list - Racks');
      expect((await get('/api/extras/saved-views/?owner=sv-writer')).results.map((r: any) => r.id)).toEqual([theirs.id]);
      expect((await get('/api/extras/saved-views/?q=sv-wri')).results.map((r: any) => r.id)).toEqual([theirs.id]);
    });

    it('keeps one global default per view, always shared', async () => {
      const a = await post('/api/extras/saved-views/', { name: 'Default A', view: 'ipam:prefix_list', is_global_default: true, is_shared: false });
      expect(a).toMatchObject({ is_global_default: true, is_shared: true });
      const elsewhere = await post('/api/extras/saved-views/', { name: 'Default elsewhere', view: 'ipam:vlan_list', is_global_default: true });
      const b = await post('/api/extras/saved-views/', { name: 'Default B', view: 'ipam:prefix_list', is_global_default: true });
      expect(b.is_global_default).toBe(true);
      expect((await get(`/api/extras/saved-views/${a.id}/`)).is_global_default).toBe(false);
      expect((await get(`/api/extras/saved-views/${elsewhere.id}/`)).is_global_default).toBe(true);
      // Several in one request: the last one wins.
      const [c, d] = await post('/api/extras/saved-views/', [
        { name: 'Default C', view: 'ipam:prefix_list', is_global_default: true },
        { name: 'Default D', view: 'ipam:prefix_list', is_global_default: true },
      ]);
      expect([c.is_global_default, d.is_global_default]).toEqual([false, true]);
      expect((await get('/api/extras/saved-views/?view=ipam:prefix_list&is_global_default=true')).results.map((r: any) => r.id)).toEqual([d.id]);
      // Made the default by an update, too.
      await t().patch(`/api/extras/saved-views/${a.id}/`, { is_global_default: true }).expect(200);
      expect((await get('/api/extras/saved-views/?view=ipam:prefix_list&is_global_default=true')).results.map((r: any) => r.id)).toEqual([a.id]);
    });

    it("associates a user with one saved view per view, named by the saved view's", async () => {
      const user = await post('/api/users/users/', { username: 'sv-assoc' });
      const one = await post('/api/extras/saved-views/', { name: 'Devices one', view: 'dcim:device_list' });
      const two = await post('/api/extras/saved-views/', { name: 'Devices two', view: 'dcim:device_list' });
      const a = await post('/api/extras/user-saved-view-associations/', { saved_view: one.id, user: user.id, view_name: 'something:else' });
      expect(a).toMatchObject({ view_name: 'dcim:device_list', display: 'sv-assoc: admin - dcim:device_list - Devices one - dcim:device_list', saved_view: { id: one.id }, user: { id: user.id } });
      expect(await refuse('/api/extras/user-saved-view-associations/', { saved_view: two.id, user: user.id, view_name: 'dcim:device_list' })).toEqual({
        non_field_errors: ['User saved view association with this User and View name already exists.'],
      });
      expect(await refuse('/api/extras/user-saved-view-associations/', { saved_view: two.id, user: user.id })).toEqual({ view_name: ['This field is required.'] });
      expect((await get('/api/extras/user-saved-view-associations/?user=sv-assoc&saved_view=Devices one')).results.map((r: any) => r.id)).toEqual([a.id]);
      // Saved views are change-logged, a user's associations are not (the reference's BaseModel).
      expect((await get(`/api/extras/object-changes/?changed_object_id=${one.id}`)).count).toBe(1);
      expect((await get(`/api/extras/object-changes/?changed_object_id=${a.id}`)).count).toBe(0);
      // The saved view goes, and its associations with it.
      await t().del(`/api/extras/saved-views/${one.id}/`).expect(204);
      await t().get(`/api/extras/user-saved-view-associations/${a.id}/`).expect(404);
    });
  });

  describe('export templates', () => {
    const exportOf = (path: string, token?: string) => t().get(path, token).buffer(true).parse((res, cb) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('end', () => cb(null, data));
    });
    let group: any;

    beforeAll(async () => {
      await post('/api/extras/custom-fields/', { label: 'Export code', key: 'export_code', type: 'text', content_types: ['tenancy.tenant'] });
      group = await post('/api/tenancy/tenant-groups/', { name: 'Export group' });
      const hiddenGroup = await post('/api/tenancy/tenant-groups/', { name: 'Hidden group' });
      await post('/api/tenancy/tenants/', [
        { name: 'Visible one', tenant_group: group.id, custom_fields: { export_code: 'V1' } },
        { name: 'Visible two', tenant_group: hiddenGroup.id, custom_fields: { export_code: 'V2' } },
        { name: 'Secret three', tenant_group: group.id, custom_fields: { export_code: 'S3' } },
      ]);
      await post('/api/extras/export-templates/', {
        content_type: 'tenancy.tenant',
        name: 'Tenant CSV',
        template_code: 'name,group,code\n{% for t in queryset %}{{ t.name }},{{ t.tenant_group.name }},{{ t.cf.export_code }}\n{% endfor %}',
        mime_type: 'text/csv',
        file_extension: '.csv',
      });
    });

    it('keeps the reference fields and checks the template, type and headers when saved', async () => {
      const e = (await get('/api/extras/export-templates/?name=Tenant CSV')).results[0];
      expect(e).toMatchObject({
        object_type: 'extras.exporttemplate',
        display: 'Tenancy | tenant: Tenant CSV',
        owner_content_type: null,
        owner_object_id: null,
        owner: null,
        content_type: 'tenancy.tenant',
        description: '',
        mime_type: 'text/csv',
        file_extension: 'csv',
        notes_url: expect.stringContaining('/notes/'),
      });
      const bad = { content_type: 'tenancy.tenant', name: 'Bad' };
      expect((await refuse('/api/extras/export-templates/', { ...bad, template_code: '{% for t in queryset %}' })).template_code[0]).toMatch(/^Template syntax error: /);
      expect((await refuse('/api/extras/export-templates/', { ...bad, template_code: '{{ queryset | nope }}' })).template_code[0]).toMatch(/^Template syntax error: .*nope/);
      expect((await refuse('/api/extras/export-templates/', { ...bad, content_type: 'dcim.nothing', template_code: 'x' })).content_type).toEqual(['Invalid content type: dcim.nothing']);
      expect((await refuse('/api/extras/export-templates/', { ...bad, template_code: 'x', mime_type: 'text/plain\r\nX-Evil: 1' })).mime_type).toEqual(['Enter a valid MIME type, such as text/csv or application/json.']);
      expect((await refuse('/api/extras/export-templates/', { ...bad, template_code: 'x', file_extension: 'csv"; x' })).file_extension).toHaveLength(1);
      expect((await refuse('/api/extras/export-templates/', { ...bad, template_code: 'x', owner_content_type: 'tenancy.tenant' })).owner_content_type).toEqual(['Invalid content type: tenancy.tenant']);
      expect(await refuse('/api/extras/export-templates/', { content_type: 'tenancy.tenant', name: 'Tenant CSV', template_code: 'x' })).toEqual({
        non_field_errors: ['The fields content_type, name must make a unique set.'],
      });
      expect((await get('/api/extras/export-templates/?content_type=tenancy.tenant&q=tenant csv')).count).toBe(1);
    });

    it('renders the filtered list with the reference headers', async () => {
      const res = await exportOf('/api/tenancy/tenants/?export=Tenant CSV&tenant_group=Export group&limit=1').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      expect(res.headers['content-disposition']).toBe('attachment; filename="netkeel_tenants.csv"');
      expect(res.body).toBe('name,group,code\nSecret three,Export group,S3\nVisible one,Export group,V1\n');
      // No extension, no MIME type: text/plain, named after the list alone.
      await post('/api/extras/export-templates/', { content_type: 'tenancy.tenant', name: 'Count', template_code: '{{ queryset | size }} tenants; first {{ queryset.first.name }}' });
      const count = await exportOf('/api/tenancy/tenants/?export=Count').expect(200);
      expect(count.headers['content-type']).toMatch(/^text\/plain/);
      expect(count.headers['content-disposition']).toBe('attachment; filename="netkeel_tenants"');
      expect(count.body).toBe('3 tenants; first Secret three');
      // An empty export is the list itself.
      expect((await get('/api/tenancy/tenants/?export=')).count).toBe(3);
    });

    it('exports only what the requester may view, related objects included', async () => {
      const tok = await t().userWith('export-reader', [
        { types: ['tenancy.tenant'], actions: ['view'], constraints: { name__isw: 'Visible' } },
        { types: ['tenancy.tenantgroup'], actions: ['view'], constraints: { name: 'Export group' } },
        { types: ['extras.exporttemplate'], actions: ['view'] },
      ]);
      const res = await exportOf('/api/tenancy/tenants/?export=Tenant CSV', tok).expect(200);
      expect(res.body).toBe('name,group,code\nVisible one,Export group,V1\nVisible two,,V2\n');
      // Without the view permission on export templates, the template is not found.
      const noTemplates = await t().userWith('export-no-templates', [{ types: ['tenancy.tenant'], actions: ['view'] }]);
      expect((await t().get('/api/tenancy/tenants/?export=Tenant CSV', noTemplates).expect(404)).body).toEqual({ detail: 'No ExportTemplate matches the given query.' });
    });

    it('answers 404 for an unknown template or one of another model', async () => {
      expect((await t().get('/api/tenancy/tenants/?export=Nothing').expect(404)).body).toEqual({ detail: 'No ExportTemplate matches the given query.' });
      await t().get('/api/tenancy/tenant-groups/?export=Tenant CSV').expect(404);
    });

    it('refuses a template that runs away or writes too much with a clear 400, quickly', async () => {
      await post('/api/extras/export-templates/', { content_type: 'tenancy.tenant', name: 'Runaway', template_code: '{% for i in (1..10000) %}{% for j in (1..10000) %}{% endfor %}{% endfor %}' });
      await post('/api/extras/export-templates/', { content_type: 'tenancy.tenant', name: 'Greedy', template_code: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' });
      await post('/api/extras/export-templates/', { content_type: 'tenancy.tenant', name: 'Huge', template_code: '{% for t in queryset %}{% for i in (1..200000) %}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{% endfor %}{% endfor %}' });
      const started = Date.now();
      const runaway = await t().get('/api/tenancy/tenants/?export=Runaway').expect(400);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(runaway.body.detail).toMatch(/^There was an error rendering the selected export template \(Runaway\): render limit exceeded/);
      expect((await t().get('/api/tenancy/tenants/?export=Greedy').expect(400)).body.detail).toMatch(/\(Greedy\): memory alloc limit exceeded/);
      // A template that reaches for a file finds none: refused when saved.
      expect((await refuse('/api/extras/export-templates/', { content_type: 'tenancy.tenant', name: 'Include', template_code: '{% include "/etc/passwd" %}' })).template_code[0]).toMatch(/^Template syntax error: /);
      expect((await t().get('/api/tenancy/tenants/?export=Huge').expect(400)).body.detail).toMatch(/\(Huge\): (output|render) limit exceeded/);
    }, 30_000);

    it('costs a bounded number of statements, whatever the number of objects', async () => {
      // Each counted once what this process keeps is trusted again (the token remembered: the API
      // root costs none; on MySQL that waits for a poll of the change counts after the writes).
      const settled = async () => expect(await eventually(async () => (await t().countStatements(() => t().get('/api/').expect(200))) === 0)).toBe(true);
      await exportOf('/api/tenancy/tenants/?export=Tenant CSV&name=Visible one').expect(200);
      await settled();
      const few = await t().countStatements(() => exportOf('/api/tenancy/tenants/?export=Tenant CSV&name=Visible one').expect(200));
      await post('/api/tenancy/tenants/', Array.from({ length: 30 }, (_, i) => ({ name: `Bulk ${i}`, tenant_group: i % 2 ? group.id : null })));
      await exportOf('/api/tenancy/tenants/?export=Tenant CSV').expect(200);
      await settled();
      const many = await t().countStatements(() => exportOf('/api/tenancy/tenants/?export=Tenant CSV').expect(200));
      expect(many).toBe(few);
    });
  });

  describe('custom links', () => {
    it('keeps the reference fields and checks both templates when saved', async () => {
      const link = await post('/api/extras/custom-links/', { content_type: 'dcim.location', name: 'Maps', text: 'Map of {{ obj.name }}', target_url: 'https://maps.example.com/?q={{ obj.name }}' });
      expect(link).toMatchObject({
        object_type: 'extras.customlink',
        display: 'Maps',
        content_type: 'dcim.location',
        weight: 100,
        group_name: '',
        button_class: { value: 'default', label: 'Default' },
        new_window: false,
        notes_url: expect.stringContaining('/notes/'),
      });
      const base = { content_type: 'dcim.location', name: 'Bad', text: 'x', target_url: 'https://x.example.com/' };
      expect((await refuse('/api/extras/custom-links/', { ...base, text: '{% if obj.name %}' })).text[0]).toMatch(/^Template syntax error: /);
      expect((await refuse('/api/extras/custom-links/', { ...base, target_url: '{{ obj.name | nope }}' })).target_url[0]).toMatch(/^Template syntax error: .*nope/);
      expect((await refuse('/api/extras/custom-links/', { ...base, content_type: 'location' })).content_type).toEqual(["Invalid value. Specify a content type as '<app_label>.<model_name>'."]);
      expect((await refuse('/api/extras/custom-links/', { ...base, button_class: 'purple' })).button_class).toEqual(['purple is not a valid choice.']);
      expect((await refuse('/api/extras/custom-links/', { ...base, name: 'Maps' })).name).toEqual(['custom link with this Name already exists.']);
      expect((await get('/api/extras/custom-links/?content_type=dcim.location&q=maps.example')).results.map((r: any) => r.id)).toEqual([link.id]);
    });
  });
});
