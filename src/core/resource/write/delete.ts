import type { Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import type { Action } from '../../context';
import { objectType, ResourceDefinition } from '../definition';
import type { GenericForeignKeyField } from '../fields';
import { ConflictError, PermissionDeniedError } from '../errors';
import { unscoped } from '../query/rows';
import { visibleRows } from '../query/scope';
import { chunks, WriteRun } from './item';
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
    for (const chunk of chunks([...ids])) await d.beforeDelete(await run.exec.query(sql`SELECT * ${unscoped(d).from(inList(ident('id'), chunk))}`), run.w);
  }
  // Every object that goes, the named and the cascaded, is told to the observers while it can still be read.
  const held = new Map(rows.map((r) => [String(r.id), r]));
  for (const [d, ids] of doomed) await notifyChanges(run.ctx, run.exec, d, 'delete', [...ids].map((id) => ({ id, before: d === def ? (held.get(id) ?? null) : null })));
  for (const [d, ids] of doomed) {
    for (const f of Object.values(d.fields)) {
      if (f.kind === 'm2m' && f.through.discriminator) {
        for (const chunk of chunks([...ids])) {
          await run.exec.execute(sql`DELETE FROM ${ident(f.through.table)} WHERE ${ident(f.through.discriminator)} = ${objectType(d)} AND ${inList(ident(f.through.source), chunk)}`);
        }
      }
    }
  }
  // Objects that point here through a generic foreign key (notes) go too: no database
  // foreign key can express that relation.
  for (const [d, ids] of doomed) {
    for (const owner of run.ctx.registry.all()) {
      for (const f of Object.values(owner.fields)) {
        // A read-only generic key is a pointer its owner's hooks keep (a cable's peer), not a dependent.
        if (f.kind !== 'gfk' || f.readOnly || (f.allowed && !f.allowed(d))) continue;
        for (const chunk of chunks([...ids])) {
          await run.exec.execute(sql`DELETE ${unscoped(owner).from(sql`${ident(f.typeColumn)} = ${objectType(d)}`, inList(ident(f.idColumn), chunk))}`);
        }
      }
    }
  }
  for (const chunk of chunks(rows.map((r) => String(r.id)))) {
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
    for (const chunk of chunks(ids)) {
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
      const gone = doomed.get(rel.def);
      for (const chunk of chunks([...set])) {
        // What the delete changes, whoever may see it.
        const deps = await run.exec.query<{ id: string }>(sql`SELECT ${ident('id')} ${unscoped(rel.def).from(inList(ident(rel.field.column), chunk))}`);
        changed += await outside(rel.def, deps.map((r) => String(r.id)).filter((id) => !gone?.has(id)), 'change');
      }
    }
  }
  if (refused) throw new PermissionDeniedError(`Unable to delete object: it would also delete ${refused} dependent object${refused === 1 ? '' : 's'} that you may not delete.`);
  if (changed) throw new PermissionDeniedError(`Unable to delete object: it would also change ${changed} object${changed === 1 ? '' : 's'} that you may not change.`);
}

/** A model's generic foreign keys whose objects go with their target as by a cascade. */
const cascadingGenericKeys = (d: ResourceDefinition): GenericForeignKeyField[] => Object.values(d.fields).filter((f): f is GenericForeignKeyField => f.kind === 'gfk' && !!f.cascade);

/** Everything a delete takes with it (cascades, cascading generic keys), after checking nothing protects it. */
export async function collect(run: WriteRun, def: ResourceDefinition, ids: string[]): Promise<Map<ResourceDefinition, Set<string>>> {
  const doomed = new Map<ResourceDefinition, Set<string>>([[def, new Set(ids)]]);
  const protectedBy: { def: ResourceDefinition; row: Row }[] = [];
  let frontier: [ResourceDefinition, string[]][] = [[def, ids]];
  while (frontier.length) {
    const next: [ResourceDefinition, string[]][] = [];
    for (const [d, list] of frontier) {
      for (const owner of run.ctx.registry.all()) {
        for (const f of cascadingGenericKeys(owner)) {
          if (f.allowed && !f.allowed(d)) continue;
          for (const chunk of chunks(list)) {
            const deps = await run.exec.query<{ id: string }>(sql`SELECT ${ident('id')} ${unscoped(owner).from(sql`${ident(f.typeColumn)} = ${objectType(d)}`, inList(ident(f.idColumn), chunk))}`);
            const set = doomed.get(owner) ?? new Set<string>();
            const fresh = deps.map((r) => String(r.id)).filter((x) => !set.has(x));
            fresh.forEach((x) => set.add(x));
            if (set.size) doomed.set(owner, set);
            if (fresh.length) next.push([owner, fresh]);
          }
        }
      }
      for (const rel of run.ctx.registry.reverseOf(d)) {
        if (rel.field.onDelete === 'setNull') continue;
        for (const chunk of chunks(list)) {
          // What the delete reaches, whoever may see it.
          const deps = await run.exec.query(sql`SELECT * ${unscoped(rel.def).from(inList(ident(rel.field.column), chunk))}`);
          if (!deps.length) continue;
          if (rel.field.onDelete === 'protect') deps.forEach((row) => protectedBy.push({ def: rel.def, row }));
          else {
            const set = doomed.get(rel.def) ?? new Set<string>();
            const fresh = deps.map((r) => String(r.id)).filter((x) => !set.has(x));
            fresh.forEach((x) => set.add(x));
            doomed.set(rel.def, set);
            if (fresh.length) next.push([rel.def, fresh]);
          }
        }
      }
    }
    frontier = next;
  }
  const blocking = protectedBy.filter((p) => !doomed.get(p.def)?.has(String(p.row.id)));
  if (blocking.length) {
    const unique = [...new Map(blocking.map((b) => [String(b.row.id), b])).values()];
    // Name only the dependents the requester may view; the others are only counted.
    const visible = new Set<string>();
    for (const d of new Set(unique.map((b) => b.def))) {
      const idsOf = unique.filter((b) => b.def === d).map((b) => String(b.row.id));
      for (const chunk of chunks(idsOf)) {
        const viewable = await visibleRows(run.ctx, run.exec, d, 'v');
        const rows = await run.exec.query<{ id: string }>(sql`SELECT ${ident('v', 'id')} AS ${ident('id')} ${viewable.from(inList(ident('v', 'id'), chunk))}`);
        rows.forEach((r) => visible.add(String(r.id)));
      }
    }
    const names = unique.filter((b) => visible.has(String(b.row.id))).map((b) => `${b.def.display(b.row, { related: () => null, ancestors: [] })} (${b.row.id})`);
    const hidden = unique.length - names.length;
    if (hidden) names.push(`${hidden} that you may not view`);
    throw new ConflictError(`Unable to delete object. ${unique.length} dependent objects were found: ${names.join(', ')}`);
  }
  return doomed;
}