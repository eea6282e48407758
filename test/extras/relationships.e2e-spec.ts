import { parse } from 'csv-parse/sync';
import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Relationships as Nautobot 2.4 has them: the two models, their rules and messages; the
 * `relationships` block (include=relationships, write responses) and key on every model, with
 * its replace/keep/clear semantics, cardinality, filters, required sides and permissions, all in
 * the object's transaction; `cr_<key>__<side>` filters; associations deleted with their objects;
 * CSV columns; the cost of a page.
 */
eachDatabase(
  'relationships',
  (t) => {
    const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
    const refuse = async (path: string, body: object, status = 400) => (await t().post(path, body).expect(status)).body;
    const patch = (path: string, body: object, status = 200, token?: string) => t().patch(path, body, token).expect(status).then((r) => r.body);
    const rel = (body: object) => post('/api/extras/relationships/', body);
    const ids = (objects: { id: string }[]) => objects.map((o) => o.id).sort();
    const block = async (path: string, token?: string) => (await t().get(`${path}?include=relationships`, token).expect(200)).body.relationships;
    const names = async (query: string, token?: string) => (await t().get(`/api/tenancy/tenants/?${query}`, token).expect(200)).body.results.map((r: any) => r.name).sort();
    const tenantUrl = (x: { id: string }) => `/api/tenancy/tenants/${x.id}/`;
    const groupUrl = (x: { id: string }) => `/api/tenancy/tenant-groups/${x.id}/`;
    const assocCount = async (relationship: string) => (await t().get(`/api/extras/relationship-associations/?relationship=${relationship}&limit=1`).expect(200)).body.count;

    let tenants: any[];
    let groups: any[];
    beforeAll(async () => {
      groups = await post(
        '/api/tenancy/tenant-groups/',
        ['g0', 'g1', 'g2', 'g3'].map((name) => ({ name })),
      );
      tenants = await post(
        '/api/tenancy/tenants/',
        ['t0', 't1', 't2', 't3', 't4', 'keep-t5', 'keep-t6'].map((name, i) => ({ name, description: i % 2 ? 'odd' : 'even' })),
      );
    });

    describe('the relationship model', () => {
      it('derives the key from the label, and checks types, keys, filters and the symmetric rules with the reference messages', async () => {
        const r = await rel({ label: 'Uplink Peer-2', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
        expect(r).toMatchObject({ key: 'uplink_peer_2', type: { value: 'many-to-many', label: 'Many to Many' }, required_on: { value: '' }, source_filter: null });
        expect(await refuse('/api/extras/relationships/', { label: 'k', key: '2bad-key', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenant' })).toEqual({
          key: ['This key is not Python/GraphQL safe. Please do not start the key with a digit and do not use hyphens or whitespace'],
        });
        expect(await refuse('/api/extras/relationships/', { label: 'x', source_type: 'tenancy.tenant', destination_type: 'dcim.nothing' })).toEqual({ destination_type: ['Invalid content type: dcim.nothing'] });
        expect(await refuse('/api/extras/relationships/', { label: 'x', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenant', source_filter: { nope: 1, tenant_group: 'no-such-group' } })).toEqual({
          source_filter: ["'nope' is not a valid filter parameter for tenancy.Tenant object", "'tenant_group': Select a valid choice. no-such-group is not one of the available choices."],
        });
        expect(await refuse('/api/extras/relationships/', { label: 'x', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenant', destination_filter: ['a'] })).toEqual({
          destination_filter: ['Filter for tenancy.Tenant must be a dictionary'],
        });
        expect(await refuse('/api/extras/relationships/', { label: 'x', type: 'symmetric-many-to-many', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup', required_on: 'source' })).toEqual({
          destination_type: ['Must match source_type for a symmetric relationship'],
          required_on: ['Symmetric relationships cannot be marked as required.'],
        });
        const sym = await rel({ label: 'Sym copy', type: 'symmetric-many-to-many', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenant', destination_label: 'Twins', source_filter: { description: 'odd' } });
        expect(sym).toMatchObject({ source_label: 'Twins', destination_label: 'Twins', destination_filter: { description: 'odd' } });
        // Type and sides are fixed once associations exist.
        await patch(tenantUrl(tenants[0]), { relationships: { uplink_peer_2: { destination: { objects: [groups[0].id] } } } });
        expect((await t().patch(`/api/extras/relationships/${r.id}/`, { type: 'one-to-many' }).expect(400)).body).toEqual({
          non_field_errors: ['Not supported to change the type of the relationship when some associations are present in the database, delete all associations first before modifying the type.'],
        });
        expect((await t().patch(`/api/extras/relationships/${r.id}/`, { destination_type: 'tenancy.tenant' }).expect(400)).body.non_field_errors[0]).toMatch(/^Not supported to change the type of the destination object/);
        await t().get('/api/extras/relationships/?key=uplink_peer_2&type=many-to-many&source_type=tenancy.tenant').expect(200).then((res) => expect(res.body.count).toBe(1));
        // Deleting the relationship deletes its associations.
        expect(await assocCount(r.id)).toBe(1);
        await t().del(`/api/extras/relationships/${r.id}/`).expect(204);
        expect((await t().get(`/api/extras/relationship-associations/?source_id=${tenants[0].id}`).expect(200)).body.count).toBe(0);
        await t().del(`/api/extras/relationships/${sym.id}/`).expect(204);
      });
    });

    describe('associations per cardinality', () => {
      it('one-to-one: one destination per source and one source per destination', async () => {
        const r = await rel({ label: 'One One', type: 'one-to-one', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
        const res = await patch(tenantUrl(tenants[0]), { relationships: { one_one: { destination: { objects: [groups[0].id] } } } });
        expect(res.relationships.one_one).toMatchObject({ id: r.id, label: 'One One', type: 'one-to-one', destination: { label: 'tenant group', object_type: 'tenancy.tenantgroup' } });
        expect(ids(res.relationships.one_one.destination.objects)).toEqual([groups[0].id]);
        expect(res.relationships.one_one.destination.objects[0]).toEqual({ id: groups[0].id, object_type: 'tenancy.tenantgroup', url: expect.stringMatching(new RegExp(`/api/tenancy/tenant-groups/${groups[0].id}/$`)) });
        // The other side sees it as its source.
        expect((await block(groupUrl(groups[0]))).one_one.source).toMatchObject({ label: 'tenant', object_type: 'tenancy.tenant', objects: [{ id: tenants[0].id }] });
        // With depth, the objects are nested representations one level down.
        const deep = (await t().get(`${tenantUrl(tenants[0])}?include=relationships&depth=1`).expect(200)).body.relationships.one_one.destination.objects;
        expect(deep).toEqual([expect.objectContaining({ id: groups[0].id, object_type: 'tenancy.tenantgroup', display: 'g0', name: 'g0', parent: null })]);
        expect(await patch(tenantUrl(tenants[1]), { relationships: { one_one: { destination: { objects: [groups[0].id] } } } }, 400)).toEqual({
          relationships: ['Unable to create more than one One One association to g0 (destination)'],
        });
        expect(await patch(tenantUrl(tenants[0]), { relationships: { one_one: { destination: { objects: [groups[1].id, groups[2].id] } } } }, 400)).toEqual({
          relationships: ['For "One One", "destination" objects must include at most a single object'],
        });
        // The association endpoint applies the same rules.
        expect(
          await refuse('/api/extras/relationship-associations/', { relationship: r.id, source_type: 'tenancy.tenant', source_id: tenants[0].id, destination_type: 'tenancy.tenantgroup', destination_id: groups[3].id }),
        ).toEqual({ source: ['Unable to create more than one One One association from t0 (source)'] });
        expect(
          await refuse('/api/extras/relationship-associations/', { relationship: r.id, source_type: 'tenancy.tenantgroup', source_id: groups[1].id, destination_type: 'tenancy.tenantgroup', destination_id: groups[2].id }),
        ).toEqual({ source_type: ['source_type has a different value than defined in One One'] });
        await t().del(`/api/extras/relationships/${r.id}/`).expect(204);
      });

      it('one-to-many: several destinations per source, one source per destination', async () => {
        const r = await rel({ label: 'One Many', type: 'one-to-many', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
        const res = await patch(tenantUrl(tenants[0]), { relationships: { one_many: { destination: { objects: [groups[0].id, { name: 'g1' }] } } } });
        expect(res.relationships.one_many.destination.label).toBe('tenant groups');
        expect(ids(res.relationships.one_many.destination.objects)).toEqual(ids([groups[0], groups[1]]));
        expect(await patch(groupUrl(groups[2]), { relationships: { one_many: { source: { objects: [tenants[1].id, tenants[2].id] } } } }, 400)).toEqual({
          relationships: ['For "One Many", "source" objects must include at most a single object'],
        });
        expect(await patch(groupUrl(groups[0]), { relationships: { one_many: { source: { objects: [tenants[1].id] } } } }, 200).then((b) => ids(b.relationships.one_many.source.objects))).toEqual([tenants[1].id]);
        expect(await patch(tenantUrl(tenants[2]), { relationships: { one_many: { destination: { objects: [groups[1].id] } } } }, 400)).toEqual({
          relationships: ['Unable to create more than one One Many association to g1 (destination)'],
        });
        await t().del(`/api/extras/relationships/${r.id}/`).expect(204);
      });

      it('many-to-many: a given key replaces its set, an omitted key is unchanged, an empty list clears', async () => {
        const a = await rel({ label: 'Many A', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
        const b = await rel({ label: 'Many B', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup', destination_label: 'Owners' });
        const url = tenantUrl(tenants[3]);
        await patch(url, { relationships: { many_a: { destination: { objects: [groups[0].id, groups[1].id] } }, many_b: { destination: { objects: [groups[2].id] } } } });
        let rels = (await patch(url, { relationships: { many_a: { destination: { objects: [groups[1].id, groups[3].id] } } } })).relationships;
        expect(ids(rels.many_a.destination.objects)).toEqual(ids([groups[1], groups[3]]));
        expect(ids(rels.many_b.destination.objects)).toEqual([groups[2].id]);
        // Both sides of a non-symmetric relationship on another model: the source side is labelled by the destination's label.
        expect((await block(groupUrl(groups[2]))).many_b.source).toMatchObject({ label: 'Owners', objects: [{ id: tenants[3].id }] });
        rels = (await patch(url, { description: 'no relationships key' })).relationships;
        expect(ids(rels.many_a.destination.objects)).toHaveLength(2);
        rels = (await patch(url, { relationships: { many_a: { destination: { objects: [] } } } })).relationships;
        expect(rels.many_a.destination.objects).toEqual([]);
        expect(rels.many_b.destination.objects).toHaveLength(1);
        // PUT and create take the key too.
        const created = await post('/api/tenancy/tenants/', { name: 'born-linked', relationships: { many_a: { destination: { objects: [groups[0].id] } } } });
        expect(ids(created.relationships.many_a.destination.objects)).toEqual([groups[0].id]);
        const put = (await t().put(tenantUrl(created), { name: 'born-linked', relationships: { many_a: { destination: { objects: [groups[1].id] } } } }).expect(200)).body;
        expect(ids(put.relationships.many_a.destination.objects)).toEqual([groups[1].id]);
        await t().del(tenantUrl(created)).expect(204);
        await t().del('/api/extras/relationships/', [{ id: a.id }, { id: b.id }]).expect(204);
      });

      it('symmetric relationships: peers on either side, swapped duplicates and the one-to-one limit', async () => {
        const mm = await rel({ label: 'Twins', type: 'symmetric-many-to-many', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenant' });
        const oo = await rel({ label: 'Spouse', type: 'symmetric-one-to-one', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenant' });
        const res = await patch(tenantUrl(tenants[0]), { relationships: { twins: { peer: { objects: [tenants[1].id, tenants[2].id] } }, spouse: { peer: { objects: [tenants[1].id] } } } });
        expect(res.relationships.twins).toMatchObject({ type: 'symmetric-many-to-many', peer: { label: 'tenants', object_type: 'tenancy.tenant' } });
        expect(res.relationships.twins).not.toHaveProperty('source');
        expect(res.relationships.spouse.peer.label).toBe('tenant');
        // Seen from the other end.
        const other = await block(tenantUrl(tenants[1]));
        expect(ids(other.twins.peer.objects)).toEqual([tenants[0].id]);
        expect(ids(other.spouse.peer.objects)).toEqual([tenants[0].id]);
        expect(await patch(tenantUrl(tenants[2]), { relationships: { spouse: { peer: { objects: [tenants[1].id] } } } }, 400)).toEqual({
          relationships: ['Unable to create more than one Spouse association to t1 (destination)'],
        });
        expect(
          await refuse('/api/extras/relationship-associations/', { relationship: oo.id, source_type: 'tenancy.tenant', source_id: tenants[1].id, destination_type: 'tenancy.tenant', destination_id: tenants[3].id }),
        ).toEqual({ source: ['Unable to create more than one Spouse association involving t1 (peer)'] });
        expect(await patch(tenantUrl(tenants[0]), { relationships: { twins: { source: { objects: [] } } } }, 400)).toEqual({ relationships: ['"source" is not a valid side for "Twins" on tenancy.Tenant'] });
        expect(
          await refuse('/api/extras/relationship-associations/', { relationship: mm.id, source_type: 'tenancy.tenant', source_id: tenants[1].id, destination_type: 'tenancy.tenant', destination_id: tenants[0].id }),
        ).toEqual({ non_field_errors: ['A Twins association already exists between t1 and t0'] });
        expect(
          await refuse('/api/extras/relationship-associations/', { relationship: mm.id, source_type: 'tenancy.tenant', source_id: tenants[4].id, destination_type: 'tenancy.tenant', destination_id: tenants[4].id }),
        ).toEqual({ destination_id: ['An object cannot form a RelationshipAssociation with itself'] });
        const assoc = (await t().get(`/api/extras/relationship-associations/?peer_id=${tenants[2].id}`).expect(200)).body;
        expect(assoc.count).toBe(1);
        expect(assoc.results[0]).toMatchObject({ relationship: { id: mm.id }, source_type: 'tenancy.tenant', destination_type: 'tenancy.tenant' });
        await t().del('/api/extras/relationships/', [{ id: mm.id }, { id: oo.id }]).expect(204);
      });
    });

    it('answers malformed relationship writes with the reference messages, and changes nothing', async () => {
      const r = await rel({ label: 'Msgs', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
      const url = tenantUrl(tenants[4]);
      const bad = (relationships: unknown) => patch(url, { description: 'must not stick', relationships }, 400);
      expect(await bad({ nothing: {} })).toEqual({ relationships: ['"nothing" is not a relationship on tenancy.Tenant'] });
      expect(await bad({ msgs: { destination: {} } })).toEqual({ relationships: ['"objects" must be specified under ["msgs"]["destination"] when present'] });
      expect(await bad({ msgs: { destination: { objects: groups[0].id } } })).toEqual({ relationships: ['"objects" must be a list, not a single value'] });
      expect(await bad({ msgs: { source: { objects: [] } } })).toEqual({ relationships: ['"source" is not a valid side for "Msgs" on tenancy.Tenant'] });
      expect(await bad({ msgs: { destination: { objects: ['00000000-0000-0000-0000-0000000009eb'] } } })).toEqual({
        relationships: ["Related object not found using the provided attributes: {'pk': UUID('00000000-0000-0000-0000-0000000009eb')}"],
      });
      expect(await bad({ msgs: { destination: { objects: [{ name: 'nope' }] } } })).toEqual({ relationships: ["Related object not found using the provided attributes: {'name': 'nope'}"] });
      expect(await bad('junk')).toEqual({ relationships: ['Invalid data. Expected a dictionary, but got str.'] });
      expect(await bad({ msgs: [groups[0].id] })).toEqual({ relationships: ['Invalid data under ["msgs"]. Expected a dictionary, but got list.'] });
      expect((await t().get(url).expect(200)).body.description).toBe('even');
      await t().del(`/api/extras/relationships/${r.id}/`).expect(204);
    });

    it('keeps a bulk write whole: one bad object leaves every object and association unchanged', async () => {
      const r = await rel({ label: 'Bulk one', type: 'one-to-many', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
      const res = await t()
        .patch('/api/tenancy/tenants/', [
          { id: tenants[0].id, description: 'bulk', relationships: { bulk_one: { destination: { objects: [groups[0].id] } } } },
          { id: tenants[1].id, description: 'bulk', relationships: { bulk_one: { destination: { objects: [groups[0].id] } } } },
        ])
        .expect(400);
      expect(JSON.stringify(res.body)).toContain('Unable to create more than one Bulk one association to g0 (destination)');
      expect(await assocCount(r.id)).toBe(0);
      expect((await t().get(tenantUrl(tenants[0])).expect(200)).body.description).toBe('even');
      // And a bulk that is valid writes every object's associations.
      const ok = (
        await t()
          .patch('/api/tenancy/tenants/', [
            { id: tenants[0].id, relationships: { bulk_one: { destination: { objects: [groups[0].id] } } } },
            { id: tenants[1].id, relationships: { bulk_one: { destination: { objects: [groups[1].id, groups[2].id] } } } },
          ])
          .expect(200)
      ).body;
      expect(ok.map((x: any) => x.relationships.bulk_one.destination.objects.length)).toEqual([1, 2]);
      await t().del(`/api/extras/relationships/${r.id}/`).expect(204);
    });

    it('applies side filters: only matching objects take part, and show the relationship', async () => {
      const r = await rel({ label: 'Odd only', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup', source_filter: { description: ['odd'] } });
      expect(await patch(tenantUrl(tenants[0]), { relationships: { odd_only: { destination: { objects: [groups[0].id] } } } }, 400)).toEqual({
        relationships: ['t0 violates Odd only source_filter restriction'],
      });
      await patch(tenantUrl(tenants[1]), { relationships: { odd_only: { destination: { objects: [groups[0].id] } } } });
      expect(await block(tenantUrl(tenants[0]))).not.toHaveProperty('odd_only');
      expect(await block(tenantUrl(tenants[1]))).toHaveProperty('odd_only');
      await t().del(`/api/extras/relationships/${r.id}/`).expect(204);
    });

    it('enforces required relationships on create and update', async () => {
      const r = await rel({ label: 'Needs group', type: 'one-to-many', source_type: 'tenancy.tenantgroup', destination_type: 'tenancy.tenant', required_on: 'destination' });
      expect(await refuse('/api/tenancy/tenants/', { name: 'lonely' })).toEqual({ relationships: ['You need to specify ["relationships"]["needs_group"]["source"]["objects"].'] });
      const ok = await post('/api/tenancy/tenants/', { name: 'grouped', relationships: { needs_group: { source: { objects: [groups[3].id] } } } });
      // An update that leaves the key out keeps the association that satisfies it.
      await patch(tenantUrl(ok), { description: 'still grouped' });
      expect(await patch(tenantUrl(ok), { relationships: { needs_group: { source: { objects: [] } } } }, 400)).toEqual({
        relationships: ['You need to specify ["relationships"]["needs_group"]["source"]["objects"].'],
      });
      await t().del(`/api/extras/relationships/${r.id}/`).expect(204);
      await t().del(tenantUrl(ok)).expect(204);
      // A required side whose model has no objects at all says how to make one.
      const none = await rel({ label: 'Needs provider', type: 'one-to-many', source_type: 'circuits.provider', destination_type: 'tenancy.tenant', required_on: 'destination' });
      expect(await refuse('/api/tenancy/tenants/', { name: 'lonely' })).toEqual({
        relationships: [
          'Tenants require a provider, but no providers exist yet. Create a provider by posting to /api/circuits/providers/',
          'You need to specify ["relationships"]["needs_provider"]["source"]["objects"].',
        ],
      });
      await t().del(`/api/extras/relationships/${none.id}/`).expect(204);
    });

    it('filters by cr_<key>__<side>, within what the requester may view, and not through hidden sides', async () => {
      const r = await rel({ label: 'Filt', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
      const hidden = await rel({ label: 'Hid', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup', source_hidden: true });
      const sym = await rel({ label: 'Pals', type: 'symmetric-many-to-many', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenant' });
      await patch(tenantUrl(tenants[5]), { relationships: { filt: { destination: { objects: [groups[0].id, groups[1].id] } }, pals: { peer: { objects: [tenants[6].id] } } } });
      await patch(tenantUrl(tenants[6]), { relationships: { filt: { destination: { objects: [groups[1].id] } } } });
      expect(await names(`cr_filt__destination=${groups[0].id}`)).toEqual(['keep-t5']);
      expect(await names(`cr_filt__destination=${groups[1].id}`)).toEqual(['keep-t5', 'keep-t6']);
      expect(await names(`cr_pals__peer=${tenants[6].id}`)).toEqual(['keep-t5']);
      expect(await names(`cr_pals__peer=${tenants[5].id}`)).toEqual(['keep-t6']);
      const fromGroups = (await t().get(`/api/tenancy/tenant-groups/?cr_filt__source=${tenants[6].id}`).expect(200)).body.results.map((g: any) => g.name);
      expect(fromGroups).toEqual(['g1']);
      expect((await t().get(`/api/tenancy/tenants/?cr_hid__destination=${groups[0].id}`).expect(400)).body).toEqual({ 'cr_hid__destination': ['Unknown filter field'] });
      expect((await t().get('/api/tenancy/tenants/?cr_filt__source=x').expect(400)).body).toEqual({ cr_filt__source: ['Unknown filter field'] });
      // A requester who may not view g0 cannot filter through it (no different from a group that does not exist).
      const token = await t().userWith('cr-filter', [
        { types: ['tenancy.tenant'], actions: ['view'] },
        { types: ['tenancy.tenantgroup'], actions: ['view'], constraints: { name: 'g1' } },
      ]);
      const viaHidden = (await t().get(`/api/tenancy/tenants/?cr_filt__destination=${groups[0].id}`, token).expect(400)).body;
      const viaNothing = (await t().get('/api/tenancy/tenants/?cr_filt__destination=00000000-0000-0000-0000-000000000001', token).expect(400)).body;
      expect(Object.keys(viaHidden)).toEqual(['cr_filt__destination']);
      expect(viaHidden.cr_filt__destination[0]).toMatch(/^Select a valid choice\./);
      expect(viaNothing.cr_filt__destination[0]).toMatch(/^Select a valid choice\./);
      expect(await names(`cr_filt__destination=${groups[1].id}`, token)).toEqual(['keep-t5', 'keep-t6']);
      // And the block shows only the groups the requester may view.
      expect(ids((await block(tenantUrl(tenants[5]), token)).filt.destination.objects)).toEqual([groups[1].id]);
      await t().del('/api/extras/relationships/', [{ id: r.id }, { id: hidden.id }, { id: sym.id }]).expect(204);
    });

    it('needs the association permissions to change links, and links only objects the requester may view', async () => {
      const r = await rel({ label: 'Perm', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
      await patch(tenantUrl(tenants[2]), { relationships: { perm: { destination: { objects: [groups[0].id] } } } });
      const base = [
        { types: ['tenancy.tenant'], actions: ['view', 'change'] },
        { types: ['tenancy.tenantgroup'], actions: ['view'], constraints: { name__in: ['g0', 'g1'] } },
        { types: ['extras.relationship'], actions: ['view'] },
      ];
      const none = await t().userWith('rel-none', base);
      const adder = await t().userWith('rel-add', [...base, { types: ['extras.relationshipassociation'], actions: ['view', 'add'] }]);
      const full = await t().userWith('rel-full', [...base, { types: ['extras.relationshipassociation'], actions: ['view', 'add', 'delete'] }]);
      const url = tenantUrl(tenants[2]);
      expect(await patch(url, { relationships: { perm: { destination: { objects: [groups[0].id, groups[1].id] } } } }, 403, none)).toEqual({
        detail: 'This user does not have permission to create RelationshipAssociations.',
      });
      expect(await patch(url, { relationships: { perm: { destination: { objects: [groups[1].id] } } } }, 403, adder)).toEqual({
        detail: 'This user does not have permission to delete RelationshipAssociations.',
      });
      expect(await patch(url, { relationships: { perm: { destination: { objects: [groups[2].id] } } } }, 400, full)).toEqual({
        relationships: [`Related object not found using the provided attributes: {'pk': UUID('${groups[2].id}')}`],
      });
      const done = await patch(url, { relationships: { perm: { destination: { objects: [groups[1].id] } } } }, 200, full);
      expect(ids(done.relationships.perm.destination.objects)).toEqual([groups[1].id]);
      await t().del(`/api/extras/relationships/${r.id}/`).expect(204);
    });

    it('deletes associations with their objects, by any delete and through cascades', async () => {
      const r = await rel({ label: 'Gone', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
      const parent = await post('/api/tenancy/tenant-groups/', { name: 'doomed-parent' });
      const child = await post('/api/tenancy/tenant-groups/', { name: 'doomed-child', parent: parent.id });
      const lone = await post('/api/tenancy/tenants/', { name: 'doomed-tenant', relationships: { gone: { destination: { objects: [child.id, groups[0].id] } } } });
      await patch(tenantUrl(tenants[4]), { relationships: { gone: { destination: { objects: [child.id] } } } });
      expect(await assocCount(r.id)).toBe(3);
      // The child group goes with its parent (a cascade), and takes its two associations.
      await t().del(groupUrl(parent)).expect(204);
      expect(await assocCount(r.id)).toBe(1);
      await t().del('/api/tenancy/tenants/', [{ id: lone.id }]).expect(204);
      expect(await assocCount(r.id)).toBe(0);
      await t().del(`/api/extras/relationships/${r.id}/`).expect(204);
    });

    it('exports relationship columns as peer ids and imports them back', async () => {
      const r = await rel({ label: 'Csv rel', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
      await patch(tenantUrl(tenants[5]), { relationships: { csv_rel: { destination: { objects: [groups[0].id, groups[1].id] } } } });
      const csv = (await t().get('/api/tenancy/tenants/?format=csv&name=keep-t5').expect(200)).text;
      const [header, row] = parse(csv) as string[][];
      const exported = (await block(tenantUrl(tenants[5]))).csv_rel.destination.objects.map((o: any) => o.id);
      expect(row[header.indexOf('cr_csv_rel__destination')].split(',').sort()).toEqual(ids([groups[0], groups[1]]));
      expect(exported).toHaveLength(2);
      // Every row's relationship cell is read, not only the first's (an import works out once what each column is).
      const imported = (
        await t()
          .post('/api/tenancy/tenants/', `name,cr_csv_rel__destination\ncsv-born,"${groups[2].id},${groups[3].id}"\ncsv-born-2,${groups[1].id}\ncsv-born-3,\n`)
          .set('Content-Type', 'text/csv')
          .expect(201)
      ).body;
      expect(ids(imported[0].relationships.csv_rel.destination.objects)).toEqual(ids([groups[2], groups[3]]));
      expect(ids(imported[1].relationships.csv_rel.destination.objects)).toEqual(ids([groups[1]]));
      expect(imported[2].relationships.csv_rel.destination.objects).toEqual([]);
      for (const o of imported) await t().del(tenantUrl(o)).expect(204);
      await t().del(`/api/extras/relationships/${r.id}/`).expect(204);
    });

    it('describes the relationships key in OPTIONS and OpenAPI', async () => {
      const options = (await t().options('/api/tenancy/tenants/').expect(200)).body;
      expect(options.actions.POST.relationships).toMatchObject({ type: 'json', read_only: false, label: 'Relationships' });
      const doc = (await t().get('/api/swagger.json/').expect(200)).body;
      expect(JSON.stringify(doc.components?.schemas?.Tenant?.properties?.relationships ?? null)).toContain('additionalProperties');
      expect(doc.components.schemas.TenantRequest.properties).toHaveProperty('relationships');
    });

    it('renders include=relationships for a page in a bounded number of statements', async () => {
      const r = await rel({ label: 'Paged', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenantgroup' });
      const sym = await rel({ label: 'Paged peers', type: 'symmetric-many-to-many', source_type: 'tenancy.tenant', destination_type: 'tenancy.tenant', source_filter: { description: 'paged' } });
      const page = await post(
        '/api/tenancy/tenants/',
        Array.from({ length: 30 }, (_, i) => ({ name: `paged-${String(i).padStart(2, '0')}`, description: 'paged', relationships: { paged: { destination: { objects: [groups[i % 4].id] } } } })),
      );
      await patch(tenantUrl(page[0]), { relationships: { paged_peers: { peer: { objects: page.slice(1, 10).map((p: any) => p.id) } } } });
      const cost = async (limit: number) => {
        let body: any;
        const n = await t().countStatements(async () => {
          body = (await t().get(`/api/tenancy/tenants/?name__isw=paged-&limit=${limit}&include=relationships`).expect(200)).body;
        });
        expect(body.results).toHaveLength(limit);
        return { n, body };
      };
      await cost(1);
      const [one, all] = [await cost(1), await cost(30)];
      expect(all.n).toBe(one.n);
      expect(all.body.results[0].relationships.paged_peers.peer.objects).toHaveLength(9);
      expect(all.body.results[3].relationships.paged.destination.objects).toEqual([expect.objectContaining({ id: groups[3].id })]);
      await t().del('/api/tenancy/tenants/', page.map((p: any) => ({ id: p.id }))).expect(204);
      await t().del('/api/extras/relationships/', [{ id: r.id }, { id: sym.id }]).expect(204);
    });
  },
  { env: { CREDENTIAL_CACHE: 'false' } },
);
