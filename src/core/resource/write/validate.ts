import type { Dialect } from '../../../database/dialect';
import { and, ident, inList, join, or, Sql, sql } from '../../../database/sql';
import type { ResourceDefinition, UniqueTogether } from '../definition';
import { unscoped } from '../query/rows';
import type { ForeignKeyField } from '../fields';
import { storedAncestry } from '../query/tree';
import { addError, label, REQUIRED } from '../serialize/input';
import { chunks, Item, keyOf, rowsPerStatement, WriteRun } from './item';

/** Model-independent checks of a write: defaults of foreign keys, tree cycles, uniqueness. */
/**
 * A tree node may not become its own ancestor, neither in the tree as stored (a node moved under
 * one of its descendants) nor in the tree as the whole batch leaves it (two nodes each moved
 * under the other): one statement for the batch, then walks in memory.
 */
export async function checkTreeCycles(run: WriteRun, def: ResourceDefinition, items: Item[]): Promise<void> {
  const parent = def.fields[def.tree!.parent] as ForeignKeyField;
  const moved = items.filter((i) => i.touched.has(parent.name) && i.values[parent.column]);
  if (!moved.length) return;
  const newParent = new Map(moved.map((i) => [i.id, String(i.values[parent.column])]));
  const stored = await storedAncestry(run.exec, def, [...new Set(newParent.values())]);
  /** Whether walking up from `from` (by `next`) reaches `id`; a loop not through `id` stops the walk. */
  const reaches = (from: string, id: string, next: (n: string) => string | null | undefined) => {
    const seen = new Set<string>();
    for (let n: string | null | undefined = from; n != null && !seen.has(n); n = next(n)) {
      if (n === id) return true;
      seen.add(n);
    }
    return false;
  };
  const afterBatch = (n: string) => (newParent.has(n) ? newParent.get(n) : stored.get(n));
  for (const item of moved) {
    const to = newParent.get(item.id)!;
    if (reaches(to, item.id, (n) => stored.get(n)) || reaches(to, item.id, afterBatch)) {
      addError(item.errors, parent.name, 'Cannot assign self or a descendant as the parent.');
    }
  }
}

/** Required foreign keys with a default (e.g. the Global namespace) when omitted on create. */
export async function applyDefaultsForForeignKeys(run: WriteRun, def: ResourceDefinition, items: Item[], create: boolean): Promise<void> {
  if (!create) return;
  for (const f of Object.values(def.fields)) {
    if (f.kind !== 'fk' || !f.default) continue;
    const missing = items.filter((i) => !i.touched.has(f.name));
    if (!missing.length) continue;
    const id = await f.default(run.w);
    if (!id) {
      // No default to fall back on (the Global namespace was renamed or deleted): the field must be given.
      if (!f.nullable) for (const item of missing) addError(item.errors, f.name, REQUIRED);
      continue;
    }
    // The default (the Global namespace) whoever may see it: the rules read it.
    const [row] = await run.exec.query(sql`SELECT * ${unscoped(f.target()).from(sql`${ident('id')} = ${id}`)}`);
    for (const item of missing) {
      item.values[f.column] = item.set[f.column] = id;
      if (row) item.related.set(f.name, row);
    }
  }
}

/** Unique fields and unique-together sets, checked for the whole batch in a few statements. */
export async function checkUnique(run: WriteRun, def: ResourceDefinition, items: Item[]): Promise<void> {
  const ok = items.filter((i) => !Object.keys(i.errors).length);
  if (!ok.length) return;
  // Stored rows that this batch updates are checked with their new values, below.
  const batchIds = new Set(ok.filter((i) => i.existing).map((i) => i.id));
  const sets: { fields: string[]; columns: string[]; field: (vals: unknown[]) => string; message: (vals: unknown[]) => string; nullsEqual: (vals: unknown[]) => boolean }[] = [];
  const never = () => false;
  for (const f of Object.values(def.fields)) {
    if (f.kind === 'scalar' && f.unique) {
      sets.push({ fields: [f.name], columns: [f.column], field: () => f.name, message: () => `${def.verboseName} with this ${label(def, f.name)} already exists.`, nullsEqual: never });
    }
  }
  for (const u of def.uniqueTogether ?? []) {
    const columns = u.columns ?? u.fields.flatMap((n) => {
      const f = def.fields[n];
      return f?.kind === 'fk' ? [f.column] : f?.kind === 'scalar' ? [f.column] : f?.kind === 'composite' ? f.columns : [n];
    });
    const field = u.field;
    sets.push({
      fields: u.fields,
      columns,
      field: typeof field === 'function' ? field : () => field ?? 'non_field_errors',
      message: (vals) => (typeof u.message === 'function' ? u.message(vals) : (u.message ?? `The fields ${u.fields.join(', ')} must make a unique set.`)),
      nullsEqual: nullsEqualOf(def, u, columns),
    });
  }
  // The id itself, when clients supply it (a new random UUID is taken to be free).
  sets.push({ fields: ['id'], columns: ['id'], field: () => 'id', message: () => `${def.verboseName} with this Id already exists.`, nullsEqual: never });
  for (const s of sets) {
    const relevant = ok.filter((i) => (s.fields[0] === 'id' ? !i.existing && i.idGiven : s.fields.some((n) => i.touched.has(n) || !i.existing)));
    const tuples = relevant
      .map((i) => ({ item: i, vals: s.columns.map((c) => i.values[c] ?? null) }))
      .filter((t) => t.vals.every((v) => v !== null) || s.nullsEqual(t.vals));
    if (!tuples.length) continue;
    const seen = new Map<string, Item>();
    for (const t of tuples) {
      const k = JSON.stringify(t.vals.map(keyOf));
      const prev = seen.get(k);
      if (prev && prev.id !== t.item.id) addError(t.item.errors, s.field(t.vals), s.message(t.vals));
      else seen.set(k, t.item);
    }
    for (const chunk of chunks(tuples, rowsPerStatement(s.columns.length))) {
      const cond = tupleCondition(run.exec.dialect, s.columns, chunk.map((t) => t.vals));
      // Uniqueness is over every object, visible or not.
      const rows = await run.exec.query(sql`SELECT ${join(['id', ...s.columns].map((c) => ident(c)))} ${unscoped(def).from(cond)}`);
      const byKey = new Map(chunk.map((t) => [JSON.stringify(t.vals.map(keyOf)), t]));
      for (const r of rows) {
        if (batchIds.has(String(r.id))) continue;
        const owner = byKey.get(JSON.stringify(s.columns.map((c) => keyOf(r[c]))));
        if (owner && (!owner.item.existing || owner.item.id !== String(r.id))) addError(owner.item.errors, s.field(owner.vals), s.message(owner.vals));
      }
    }
  }
}

/** Whether a tuple with NULLs is checked: all NULLs equal, or only those of the named fields' columns. */
function nullsEqualOf(def: ResourceDefinition, u: UniqueTogether, columns: string[]): (vals: unknown[]) => boolean {
  if (!u.nullsEqual) return () => false;
  if (u.nullsEqual === true) return () => true;
  const named = u.nullsEqual.map((n) => def.fields[n]);
  const equal = new Set(named.map((f) => (f && (f.kind === 'fk' || f.kind === 'scalar') ? f.column : '')));
  return (vals) => vals.every((v, i) => v !== null || equal.has(columns[i]));
}

/**
 * Rows equal to any of the tuples, as few conditions as the tuples allow: tuples that agree on
 * every column but the last share one IN list (`namespace = ? AND host IN (...)`), which the
 * database serves as one index scan rather than hundreds of OR-ed equalities.
 */
function tupleCondition(d: Dialect, columns: string[], tuples: unknown[][]): Sql {
  const eq = (c: string, v: unknown) => (v === null ? sql`${ident(c)} IS NULL` : sql`${ident(c)} = ${d.toDb(v, 'string')}`);
  const last = columns[columns.length - 1];
  const groups = new Map<string, { head: unknown[]; tails: unknown[] }>();
  for (const vals of tuples) {
    const head = vals.slice(0, -1);
    const k = JSON.stringify(head.map(keyOf));
    if (!groups.has(k)) groups.set(k, { head, tails: [] });
    groups.get(k)!.tails.push(vals[vals.length - 1]);
  }
  return or(
    [...groups.values()].map((g) => {
      const present = g.tails.filter((v) => v !== null);
      const tail = or([present.length ? inList(ident(last), present.map((v) => d.toDb(v, 'string'))) : null, present.length < g.tails.length ? sql`${ident(last)} IS NULL` : null]);
      return and([...g.head.map((v, j) => eq(columns[j], v)), tail]);
    }),
  );
}
