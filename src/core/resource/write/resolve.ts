import type { Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import { objectType, ResourceDefinition, WriteState } from '../definition';
import { unscoped } from '../query/rows';
import { addError } from '../serialize/input';
import type { RefSpec } from '../serialize/references';
import type { Item, PendingRef, WriteRun } from './item';

export function state(run: WriteRun, def: ResourceDefinition, item: Item, create: boolean): WriteState {
  return {
    create,
    existing: item.existing,
    values: item.values,
    touched: item.touched,
    related: (name) => {
      if (item.related.has(name)) return item.related.get(name) ?? null;
      const f = def.fields[name];
      if (f?.kind === 'fk') {
        const cached = run.relatedCache.get(`${objectType(f.target())}:${item.values[f.column]}`);
        return cached ?? null;
      }
      return null;
    },
    m2m: (name) => item.m2m.get(name) ?? item.contentTypes.get(name),
    linked: async (name) => {
      const given = item.m2m.get(name) ?? item.contentTypes.get(name);
      if (given) return given;
      const f = def.fields[name];
      if (create || !f || (f.kind !== 'm2m' && f.kind !== 'contentTypes')) return [];
      const target = f.kind === 'm2m' ? f.through.target : 'content_type';
      const disc = f.kind === 'm2m' && f.through.discriminator ? sql` AND ${ident(f.through.discriminator)} = ${objectType(def)}` : sql``;
      const rows = await run.exec.query<{ v: string }>(sql`SELECT ${ident(target)} AS ${ident('v')} FROM ${ident(f.through.table)} WHERE ${ident(f.through.source)} = ${item.id}${disc}`);
      return rows.map((r) => String(r.v));
    },
  };
}

export async function resolveReferences(run: WriteRun, def: ResourceDefinition, items: Item[]): Promise<void> {
  // Group every reference by (target, limit) so each target costs one id query.
  const groups = new Map<string, { target: ResourceDefinition; field: PendingRef['field']; entries: { item: Item; ref: PendingRef; spec: RefSpec; pos: number }[] }>();
  for (const item of items) {
    for (const ref of item.refs) {
      const key = `${objectType(ref.target)}|${ref.field.name}`;
      const g = groups.get(key) ?? { target: ref.target, field: ref.field, entries: [] };
      ref.specs.forEach((spec, pos) => g.entries.push({ item, ref, spec, pos }));
      groups.set(key, g);
    }
  }
  // Unchanged foreign keys that rules may need (parent, location_type): load them too.
  const wanted = new Map<ResourceDefinition, Set<string>>();
  for (const f of Object.values(def.fields)) {
    if (f.kind !== 'fk') continue;
    for (const item of items) {
      if (item.touched.has(f.name) || !item.existing?.[f.column]) continue;
      const set = wanted.get(f.target()) ?? new Set<string>();
      set.add(String(item.existing[f.column]));
      wanted.set(f.target(), set);
    }
  }
  await Promise.all(
    [...wanted].map(async ([target, ids]) => {
      // Already referenced by the objects being changed: the rules may read them, visible or not.
      const rows = await run.exec.query(sql`SELECT * ${unscoped(target).from(inList(ident('id'), [...ids]))}`);
      rows.forEach((r) => run.relatedCache.set(`${objectType(target)}:${r.id}`, r));
    }),
  );
  await Promise.all(
    [...groups.values()].map(async (g) => {
      const limit = 'limit' in g.field && g.field.limit ? g.field.limit(def) : undefined;
      const results = await run.resolver.resolve(g.target, g.entries.map((e) => e.spec), limit);
      const many = new Map<string, string[]>();
      g.entries.forEach((e, i) => {
        const r = results[i];
        const f = e.ref.field;
        if (typeof r === 'string') {
          addError(e.item.errors, e.ref.errorKey ?? f.name, r);
          return;
        }
        run.relatedCache.set(`${objectType(g.target)}:${r.id}`, r);
        if (f.kind === 'fk') {
          e.item.set[f.column] = String(r.id);
          e.item.related.set(f.name, r);
        } else if (f.kind === 'gfk') {
          e.item.set[f.idColumn] = String(r.id);
          e.item.related.set(f.name, r);
        } else {
          const key = `${e.item.index}:${f.name}`;
          const list = many.get(key) ?? [];
          if (!list.includes(String(r.id))) list.push(String(r.id));
          many.set(key, list);
        }
      });
      for (const item of new Set(g.entries.map((e) => e.item))) {
        if (g.field.kind === 'm2m') item.m2m.set(g.field.name, many.get(`${item.index}:${g.field.name}`) ?? []);
      }
    }),
  );
  // An m2m given as an empty list has no specs and so no group: it clears the set.
  for (const item of items) for (const ref of item.refs) if (ref.many && !ref.specs.length) item.m2m.set(ref.field.name, []);
}