import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * A generic foreign key (`<name>_type` + `<name>_id`) is written like two fields: an update may
 * send one part alone, as clients that send only what changed do (pynautobot's save), and the
 * other is the stored one.
 */
eachDatabase('generic foreign keys on update', (t) => {
  const post = async (path: string, body: unknown) => (await t().post(path, body).expect(201)).body as Obj;

  it('takes one part of a generic key alone on PATCH, single and bulk, and checks the pair', async () => {
    const [one, two] = (await t().post('/api/tenancy/tenants/', [{ name: 'GFK one' }, { name: 'GFK two' }]).expect(201)).body as Obj[];
    const note = await post('/api/extras/notes/', { assigned_object_type: 'tenancy.tenant', assigned_object_id: one.id, note: 'moves' });

    // The id alone: the stored type stays.
    const moved = (await t().patch(`/api/extras/notes/${note.id}/`, { assigned_object_id: two.id }).expect(200)).body;
    expect({ type: moved.assigned_object_type, id: moved.assigned_object_id }).toEqual({ type: 'tenancy.tenant', id: two.id });

    // The type alone, in a bulk update: the stored id stays.
    const bulk = (await t().patch('/api/extras/notes/', [{ id: note.id, assigned_object_type: 'tenancy.tenant', note: 'bulk' }]).expect(200)).body;
    expect({ id: bulk[0].assigned_object_id, note: bulk[0].note }).toEqual({ id: two.id, note: 'bulk' });

    // A type the stored id is not an object of: refused, nothing changed.
    const wrong = await t().patch(`/api/extras/notes/${note.id}/`, { assigned_object_type: 'tenancy.tenantgroup' });
    expect(wrong.status).toBe(400);
    expect(Object.keys(wrong.body)).toEqual(['assigned_object_id']);
    const after = (await t().get(`/api/extras/notes/${note.id}/`).expect(200)).body;
    expect({ type: after.assigned_object_type, id: after.assigned_object_id, note: after.note }).toEqual({ type: 'tenancy.tenant', id: two.id, note: 'bulk' });
  });
});
