import { parse as parseCsv } from 'csv-parse/sync';
import { ResourceRegistry } from '../../resource/registry';
import type { ModelRun } from './model-run';
import { Obj } from './shared';

/** A relationship's CSV column (`cr_<key>__<side>`): the peers' ids. */
const RELATIONSHIP_COLUMN = /^cr_(.+)__(source|destination|peer)$/;

/** CSV export (cells as JSON shows them), import and the round trip. */
export function csvContract(m: ModelRun): void {
  const { t, c, detail, count, create } = m;
  describe('CSV', () => {
    const model = m.type.split('.')[1];
    // A generic relation's columns (`<name>__<natural key>`): the model's generic foreign keys.
    const isGeneric = (name: string) => t().app.get(ResourceRegistry).get(m.type)?.fields[name]?.kind === 'gfk';
    const csvGet = (path: string) => t().get(path).buffer(true).parse((res, cb) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => cb(null, text));
    });

    it('exports the list with ?format=csv and Accept: text/csv, the same bytes either way', async () => {
      const a = await csvGet(`${m.path}?format=csv`).expect(200);
      const b = await csvGet(m.path).set('Accept', 'text/csv');
      expect(b.status).toBe(200);
      expect(a.headers['content-type']).toBe('text/csv; charset=UTF-8');
      expect(a.headers['content-disposition']).toBe(`attachment; filename="netkeel_${model}_data.csv"`);
      expect(a.body).toBe(b.body);
      // Parsed as CSV: a display may hold commas and quotes ("vrf [device] (rd: x, name: y)").
      const [header, ...rows] = parseCsv(a.body as string, { relax_column_count: true }) as string[][];
      expect(header.slice(0, header.includes('name') ? 3 : 2)).toEqual(header.includes('name') ? ['name', 'display', 'id'] : ['display', 'id']);
      expect(rows.length).toBe(await count());
      const idCol = header.indexOf('id');
      expect(rows.map((r) => r[idCol])).toContain(m.fixtures[0].id);
    });

    it('exports exactly the filtered rows, unpaginated', async () => {
      const res = await csvGet(`${m.path}?format=csv&limit=1&id=${m.fixtures[0].id}&id=${m.fixtures[1].id}`).expect(200);
      const lines = (res.body as string).trim().split(/\r?\n/);
      expect(lines).toHaveLength(3);
    });

    it('writes every cell as the JSON representation shows it', async () => {
      const exported = await csvGet(`${m.path}?format=csv&${m.fixtures.map((f) => `id=${f.id}`).join('&')}`).expect(200);
      const [header, ...rows] = parseCsv(exported.body as string) as string[][];
      expect(rows).toHaveLength(m.fixtures.length);
      const paths = header.filter((h) => h.includes('__') && !h.startsWith('cf_') && !RELATIONSHIP_COLUMN.test(h)).map((h) => h.split('__'));
      const depth = Math.min(10, Math.max(1, ...paths.map((p) => p.length - 1)));
      const post = (await t().http.options(m.path).set('Authorization', `Token ${t().token}`)).body.actions?.POST ?? {};
      const cfTypes = new Map<string, string>();
      for (const cf of (await t().get('/api/extras/custom-fields/?limit=1000').expect(200)).body.results) cfTypes.set(cf.key, typeof cf.type === 'object' ? cf.type.value : cf.type);

      const text = (v: unknown, json: boolean): string => {
        if (v === null || v === undefined) return 'NULL';
        if (typeof v === 'boolean') return v ? 'True' : 'False';
        if (json) return JSON.stringify(v);
        if (Array.isArray(v)) return v.join(',');
        if (typeof v === 'object') return 'value' in v && 'label' in v ? String((v as Obj).value) : JSON.stringify(v);
        return String(v);
      };
      // A path through related objects: NoObject past a missing one, NULL for a null value.
      const walk = (o: Obj, path: string[]): string => {
        let cur: Obj | null | undefined = o;
        for (const seg of path.slice(0, -1)) {
          cur = cur?.[seg];
          if (cur === null || cur === undefined) return 'NoObject';
        }
        return text(cur![path[path.length - 1]], false);
      };
      for (const row of rows) {
        const json = (await t().get(`${detail(row[header.indexOf('id')])}?depth=${depth}&include=relationships`).expect(200)).body as Obj;
        const generic: string[] = [];
        header.forEach((h, i) => {
          const cell = row[i];
          let expected: string;
          if (h.startsWith('cf_')) {
            const v = json.custom_fields?.[h.slice(3)];
            const type = cfTypes.get(h.slice(3));
            expected = v === null || v === undefined ? '' : type === 'json' ? JSON.stringify(v) : Array.isArray(v) && !v.length ? '[]' : text(v, false);
          } else if (RELATIONSHIP_COLUMN.test(h)) {
            // A relationship's side: the ids of the peers the block lists.
            const [, key, side] = RELATIONSHIP_COLUMN.exec(h)!;
            const objects: Obj[] = json.relationships?.[key]?.[side]?.objects ?? [];
            expected = objects.map((o) => o.id).join(',');
          } else if (h === 'tags') {
            expect({ h, cell: cell ? cell.split(',').sort() : [] }).toEqual({ h, cell: (json.tags as Obj[]).map((x) => x.name).sort() });
            return;
          } else if (h.includes('__')) {
            const path = h.split('__');
            expected = walk(json, path);
            if (isGeneric(path[0]) && cell === '') return; // a generic relation: another type's natural key
            if (isGeneric(path[0])) generic.push(h);
          } else expected = text(json[h], post[h]?.type === 'json');
          expect({ h, cell }).toEqual({ h, cell: expected });
        });
        for (const g of new Set(paths.map((p) => p[0]).filter((p) => isGeneric(p) && json[p]))) expect(generic.filter((h) => h.startsWith(`${g}__`)).length).toBeGreaterThan(0);
      }
    });

    if (m.creates) {
      (c.csvRoundTrip === false ? it.skip : it)('round-trips: export, delete, re-import recreates the same object with the same id and fields', async () => {
        const obj = await create(c.make(m.ctx, m.seq++));
        const before = (await t().get(detail(obj.id)).expect(200)).body;
        const exported = await csvGet(`${detail(obj.id)}?format=csv`).expect(200);
        expect(exported.headers['content-disposition']).toBe(`attachment; filename="netkeel_${model}_data.csv"`);
        await t().del(detail(obj.id)).expect(204);
        const res = await t().http.post(m.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(exported.body);
        expect({ status: res.status, body: res.status === 201 ? 'ok' : res.body }).toEqual({ status: 201, body: 'ok' });
        expect(Array.isArray(res.body)).toBe(true);
        expect(res.body[0].id).toBe(obj.id);
        const after = (await t().get(detail(obj.id)).expect(200)).body;
        const same = (o: Obj) => {
          const copy = { ...o };
          for (const k of ['created', 'last_updated', ...(c.createOnly ?? [])]) delete copy[k];
          return copy;
        };
        expect(same(after)).toEqual(same(before));
      });

      it('answers malformed CSV with a 400 naming the row and column, and saves nothing', async () => {
        const post = (body: string | Buffer) => t().http.post(m.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(body);
        const before = await count();
        expect((await post('name,,display\na,b,c\n')).body).toEqual({ detail: 'Row 1: Column 2: missing/empty header for this column.' });
        expect((await post('name,name\na,b\n')).body.detail).toMatch(/^Row 1: Column 2: duplicate header "name"/);
        expect((await post('name,display\na,b\nc\n')).body).toEqual({ detail: 'Row 3: expected 2 columns, got 1.' });
        expect((await post(Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xff, 0xfe, 0x0a]))).status).toBe(400);
        expect((await post('')).status).toBe(400);
        const invalid = await post('id\nnot-a-uuid\n');
        expect(invalid.status).toBe(400);
        expect(Object.keys(invalid.body)).toEqual(['row 2']);
        expect(await count()).toBe(before);
      });
    } else {
      it('refuses CSV imports with 405', async () => {
        await t().http.post(m.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send('name\nx\n').expect(405);
      });
    }
  });
}
