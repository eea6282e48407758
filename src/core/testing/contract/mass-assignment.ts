import { randomUUID } from 'node:crypto';
import { parse as parseCsv } from 'csv-parse/sync';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { ResourceRegistry } from '../../resource/registry';
import type { Field } from '../../resource/fields';
import { writable } from '../../resource/serialize/input';
import type { ModelRun } from './model-run';
import type { Obj } from './shared';

const LONG_AGO = '2000-01-02T03:04:05Z';

/** A value of the field's shape that no write of this test would produce by itself. */
function bogus(f: Field, other: string): unknown {
  switch (f.kind) {
    case 'scalar':
      if (f.type === 'datetime') return LONG_AGO;
      if (f.type === 'date') return '2000-01-02';
      if (f.type === 'integer' || f.type === 'decimal') return 4242;
      if (f.type === 'boolean') return true;
      if (f.type === 'json') return { injected: true };
      if (f.type === 'uuid') return other;
      return 'INJECTED';
    case 'fk':
    case 'gfk':
      return other;
    case 'm2m':
      return [other];
    case 'count':
      return 4242;
    default:
      return 'INJECTED';
  }
}

/**
 * Mass assignment: what a client sends for a field it may not write (read-only fields, counts,
 * the id of an existing object, `created`, `last_updated`, `display`, `url`) is ignored on every
 * write path: POST, PUT, PATCH, bulk PATCH and CSV import. A test that discovers the fields from
 * the registry, so a field added later is covered.
 */
export function massAssignmentContract(m: ModelRun): void {
  const { t, c, detail } = m;
  if (!m.creates) return;

  it('ignores read-only fields, ids and timestamps a client sends, on every write path', async () => {
    const def = t().app.get(ResourceRegistry).get(m.type)!;
    const started = Date.now() - 60_000;
    const other = m.fixtures[1].id as string;
    const injected: Obj = { created: LONG_AGO, last_updated: LONG_AGO, display: 'INJECTED', url: 'http://injected.invalid/', natural_slug: 'injected', object_type: 'injected.model' };
    const readOnly = Object.values(def.fields).filter((f) => !writable(f) && !(c.writeOnly ?? []).includes(f.name) && !(c.createOnly ?? []).includes(f.name));
    for (const f of readOnly) injected[f.name] = bogus(f, other);
    const untouched = (o: Obj, before: Obj | null, what: string) => {
      for (const k of ['created', 'last_updated']) expect({ what, k, recent: new Date(o[k]).getTime() > started }).toEqual({ what, k, recent: true });
      expect({ what, display: o.display === 'INJECTED', url: String(o.url).includes('injected'), type: o.object_type }).toEqual({ what, display: false, url: false, type: m.type });
      for (const f of readOnly) {
        const v = o[f.name];
        const shown = v && typeof v === 'object' && !Array.isArray(v) && 'id' in v ? v.id : v;
        if (before) expect({ what, field: f.name, value: o[f.name] }).toEqual({ what, field: f.name, value: before[f.name] });
        else expect({ what, field: f.name, injected: JSON.stringify(shown) === JSON.stringify(injected[f.name]) }).toEqual({ what, field: f.name, injected: false });
      }
    };

    const created = await t().post(m.path, { ...c.make(m.ctx, m.seq++), ...injected }).expect(201);
    untouched(created.body, null, 'POST');
    const obj = created.body as Obj;
    const before = (await t().get(detail(obj.id)).expect(200)).body;
    const ignoredOnUpdate = { ...injected, id: randomUUID() };
    const patched = await t().patch(detail(obj.id), ignoredOnUpdate).expect(200);
    expect(patched.body.id).toBe(obj.id);
    untouched(patched.body, before, 'PATCH');
    const got = (await t().get(detail(obj.id)).expect(200)).body;
    const put = await t().put(detail(obj.id), { ...got, ...ignoredOnUpdate }).expect(200);
    expect(put.body.id).toBe(obj.id);
    untouched(put.body, before, 'PUT');
    const bulk = await t().patch(m.path, [{ ...injected, id: obj.id }]).expect(200);
    untouched(bulk.body[0], before, 'bulk PATCH');
    await t().get(detail(ignoredOnUpdate.id)).expect(404);

    // CSV import: the export's own columns for what is read-only, filled with injected values.
    const exported = await t().get(`${detail(obj.id)}?format=csv`).buffer(true).parse((res, cb) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => cb(null, text));
    });
    await t().del(detail(obj.id)).expect(204);
    const [header, row] = parseCsv(String(exported.body)) as string[][];
    for (const k of ['created', 'last_updated']) if (header.includes(k)) row[header.indexOf(k)] = LONG_AGO;
    // What a CSV cannot carry (an uploaded file: csvRoundTrip false) is given again as a create gives it.
    if (c.csvRoundTrip === false) for (const k of c.writeOnly ?? []) if (header.includes(k)) row[header.indexOf(k)] = String(c.make(m.ctx, m.seq++)[k]);
    const res = await t().http.post(m.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(stringifyCsv([header, row]));
    expect({ status: res.status, body: res.status === 201 ? 'ok' : res.body }).toEqual({ status: 201, body: 'ok' });
    untouched(res.body[0], null, 'CSV import');
  });
}
