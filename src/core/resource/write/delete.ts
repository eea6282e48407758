import type { Row } from '../../../database/db';
import { ident, inList, join, raw, Sql, sql } from '../../../database/sql';
import type { Action } from '../../context';
import { objectType, ResourceDefinition } from '../definition';
import type { GenericForeignKeyField } from '../fields';
import { ConflictError, PermissionDeniedError } from '../errors';
import { unscoped } from '../query/rows';
import { visibleRows } from '../query/scope';
import { chunks, ID_CHUNK, WriteRun } from './item';
import { notifyChanges } from './observe';

/**
 * Deletes objects (already loaded within the delete scope) with everything that cascades
 * from them; refuses with 409 when other objects protect them.
 */
export async function deleteRows(run: WriteRun, def: ResourceDefinition, rows: Row[]): Promise<void> {
  if (!rows.length) return;
  const doomed = await collect(run, def, rows.map((r) => String(r.id)));
  await checkCascadeScope(run, def, rows, doomed);
  if (def.beforeDelete) await def.beforeDelete(rows, run.w);
  // Objects deleted through a cascading generic foreign key (cables with their terminations) keep their model's hook.
  for (const [d, ids] of doomed) {
    if (d === def || !d.beforeDelete || !cascadingGenericKeys(d).length) continue;
    for (const chunk of chunks([...ids], ID_CHUNK)) await d.beforeDelete(await run.exec.query(sql`SELECT * ${unscoped(d).from(inList(ident('id'), chunk))}`), run.w);
  }
  // Every object that goes, the named and the cascaded, is told to the observers while it can still be read.
  const held = new Map(rows.map((r) => [String(r.id), r]));
  for (const [d, ids] of doomed) await notifyChanges(run.ctx, run.exec, d, 'delete', [...ids].map((id) => ({ id, before: d === def ? (held.get(id) ?? null) : null })));
  // What no database key removes goes too: the links of a many-to-many kept for many models
  // (tags), and objects that point here through a generic foreign key (notes). One statement
  // asks which of those tables hold any for these objects (ordinarily none of the eight a
  // location has); only those are deleted from.
  for (const [d, ids] of doomed) {
    const leftovers = leftoversOf(run, d);
    if (!leftovers.length) continue;
    for (const chunk of chunks([...ids], ID_CHUNK)) {
      const found = await run.exec.query<{ k: number }>(join(leftovers.map((l, k) => sql`(SELECT ${raw(String(k))} AS ${ident('k')} ${l.from(chunk)} LIMIT 1)`), ' UNION ALL '));
      for (const { k } of found) await run.exec.execute(sql`DELETE ${leftovers[Number(k)].from(chunk)}`);
    }
  }
  for (const chunk of chunks(rows.map((r) => String(r.id)), ID_CHUNK)) {
    await run.exec.execute(sql`DELETE ${unscoped(def).from(inList(ident('id'), chunk))}`);
  }
  if (def.afterDelete) await def.afterDelete(rows, run.w);
}

/**
 * A delete reaches further than the objects named: cascades delete dependents and SET NULL
 * changes others. Each of them must be one the requester may delete (or change): otherwise the
 * whole delete is refused, saying how many, naming none (they may be hidden).
 */
export async function checkCascadeScope(run: WriteRun, def: ResourceDefinition, rows: Row[], doomed: Map<ResourceDefinition, Set<string>>): Promise<void> {
  const named = new Set(rows.map((r) => String(r.id)));
  let refused = 0;
  let changed = 0;
  const outside = async (d: ResourceDefinition, ids: string[], action: Action) => {
    const allowed = await visibleRows(run.ctx, run.exec, d, 'c', action, { base: false });
    if (!allowed.restricted || !ids.length) return 0;
    let inside = 0;
    for (const chunk of chunks(ids, ID_CHUNK)) {
      const [{ n }] = await run.exec.query<{ n: number }>(sql`SELECT COUNT(*) AS n ${allowed.from(inList(ident('c', 'id'), chunk))}`);
      inside += Number(n);
    }
    return ids.length - inside;
  };
  for (const [d, set] of doomed) refused += await outside(d, [...set].filter((id) => !(d === def && named.has(id))), 'delete');
  for (const [d, set] of doomed) {
    for (const rel of run.ctx.registry.reverseOf(d)) {
      // A reference the system keeps (read-only, or recomputed like a prefix's parent) is bookkeeping, not the requester's change.
      if (rel.field.onDelete !== 'setNull' || rel.field.readOnly || rel.field.maintained || rel.def.readOnly) continue;
      // A requester who may change every object of the model changes none outside: nothing to look up.
      if (!(await visibleRows(run.ctx, run.exec, rel.def, 'c', 'change', { base: false })).restricted) continue;
      const gone = doomed.get(rel.def);
      for (const chunk of chunks([...set], ID_CHUNK)) {
        // What the delete changes, whoever may see it.
        const deps = await run.exec.query<{ id: string }>(sql`SELECT ${ident('id')} ${unscoped(rel.def).from(inList(ident(rel.field.column), chunk))}`);
        changed += await outside(rel.def, deps.map((r) => String(r.id)).filter((id) => !gone?.has(id)), 'change');
      }
    }
  }
  if (refused) throw new PermissionDeniedError(`Unable to delete object: it would also delete ${refused} dependent object${refused === 1 ? '' : 's'} that you may not delete.`);
  if (changed) throw new PermissionDeniedError(`Unable to delete object: it would also change ${changed} object${changed === 1 ? '' : 's'} that you may not change.`);
}

/** A table whose rows go with the objects they name: `from` renders its rows that name these ids. */
interface Leftover {
  /** `FROM <table> WHERE <its rows that name these ids>`. */
  from: (ids: string[]) => Sql;
}

/** The rows no database key removes with an object of `d` (see deleteRows). */
function leftoversOf(run: WriteRun, d: ResourceDefinition): Leftover[] {
  const type = objectType(d);
  const out: Leftover[] = [];
  for (const f of Object.values(d.fields)) {
    if (f.kind !== 'm2m' || !f.through.discriminator) continue;
    const { table, discriminator, source } = f.through;
    out.push({ from: (ids) => sql`FROM ${ident(table)} WHERE ${ident(discriminator)} = ${type} AND ${inList(ident(source), ids)}` });
  }
  for (const { def: owner, field: f } of run.ctx.registry.genericReferencesTo(d)) {
    // A read-only generic key is a pointer its owner's hooks keep (a cable's peer), not a dependent.
    if (f.readOnly) continue;
    out.push({ from: (ids) => unscoped(owner).from(sql`${ident(f.typeColumn)} = ${type}`, inList(ident(f.idColumn), ids)) });
  }
  return out;
}

/** A model's generic foreign keys whose objects go with their target as by a cascade. */
const cascadingGenericKeys = (d: ResourceDefinition): GenericForeignKeyField[] => Object.values(d.fields).filter((f): f is GenericForeignKeyField => f.kind === 'gfk' && !!f.cascade);

/** What reaches a model's objects and goes with them, or protects them: a reverse foreign key or a cascading generic key. */
interface Reach {
  owner: ResourceDefinition;
  protect: boolean;
  /** The condition on the owner's rows that point at these ids. */
  at: (ids: string[]) => Sql;
}

/** Everything that reaches objects of `d` (see Reach): the registry's reverse keys and generic keys to it. */
function reachesOf(run: WriteRun, d: ResourceDefinition): Reach[] {
  const out: Reach[] = [];
  for (const { def: owner, field: f } of run.ctx.registry.genericReferencesTo(d)) {
    if (!f.cascade) continue;
    out.push({ owner, protect: false, at: (ids) => sql`${ident(f.typeColumn)} = ${objectType(d)} AND ${inList(ident(f.idColumn), ids)}` });
  }
  for (const rel of run.ctx.registry.reverseOf(d)) {
    if (rel.field.onDelete === 'setNull') continue;
    out.push({ owner: rel.def, protect: rel.field.onDelete === 'protect', at: (ids) => inList(ident(rel.field.column), ids) });
  }
  return out;
}

/**
 * Everything a delete takes with it (cascades, cascading generic keys), after checking nothing
 * protects it: level by level, one statement per model and chunk of ids for every relation that
 * reaches it (a UNION ALL of their ids; a location has fifteen).
 */
export async function collect(run: WriteRun, def: ResourceDefinition, ids: string[]): Promise<Map<ResourceDefinition, Set<string>>> {
  const doomed = new Map<ResourceDefinition, Set<string>>([[def, new Set(ids)]]);
  const protectedBy: { def: ResourceDefinition; id: string }[] = [];
  let frontier: [ResourceDefinition, string[]][] = [[def, ids]];
  while (frontier.length) {
    const next: [ResourceDefinition, string[]][] = [];
    for (const [d, list] of frontier) {
      const reaches = reachesOf(run, d);
      if (!reaches.length) continue;
      for (const chunk of chunks(list, ID_CHUNK)) {
        // What the delete reaches, whoever may see it. Ids as text: one column for every model.
        const parts = reaches.map((r, k) => sql`SELECT ${raw(String(k))} AS ${ident('k')}, ${run.exec.dialect.castText(ident('id'))} AS ${ident('id')} ${unscoped(r.owner).from(r.at(chunk))}`);
        const deps = await run.exec.query<{ k: number; id: string }>(join(parts, ' UNION ALL '));
        const fresh = new Map<ResourceDefinition, string[]>();
        for (const dep of deps) {
          const r = reaches[Number(dep.k)];
          const id = String(dep.id);
          if (r.protect) {
            protectedBy.push({ def: r.owner, id });
            continue;
          }
          let set = doomed.get(r.owner);
          if (!set) doomed.set(r.owner, (set = new Set<string>()));
          if (set.has(id)) continue;
          set.add(id);
          const found = fresh.get(r.owner);
          if (found) found.push(id);
          else fresh.set(r.owner, [id]);
        }
        next.push(...fresh);
      }
    }
    frontier = next;
  }
  const blocking = protectedBy.filter((p) => !doomed.get(p.def)?.has(p.id));
  if (blocking.length) {
    const unique = [...new Map(blocking.map((b) => [b.id, b])).values()];
    // Name only the dependents the requester may view (their rows, for their names); the others are only counted.
    const visible = new Map<string, Row>();
    for (const d of new Set(unique.map((b) => b.def))) {
      const idsOf = unique.filter((b) => b.def === d).map((b) => b.id);
      for (const chunk of chunks(idsOf, ID_CHUNK)) {
        const viewable = await visibleRows(run.ctx, run.exec, d, 'v');
        const rows = await run.exec.query(sql`SELECT ${ident('v')}.* ${viewable.from(inList(ident('v', 'id'), chunk))}`);
        rows.forEach((r) => visible.set(String(r.id), r));
      }
    }
    const names = unique.filter((b) => visible.has(b.id)).map((b) => `${b.def.display(visible.get(b.id)!, { related: () => null, ancestors: [] })} (${b.id})`);
    const hidden = unique.length - names.length;
    if (hidden) names.push(`${hidden} that you may not view`);
    throw new ConflictError(`Unable to delete object. ${unique.length} dependent objects were found: ${names.join(', ')}`);
  }
  return doomed;
}
