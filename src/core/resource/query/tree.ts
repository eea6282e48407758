import type { Executor, Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import type { ResourceDefinition } from '../definition';
import type { ForeignKeyField } from '../fields';
import { append } from '../../collections';
import { Rows, unscoped } from './rows';

const parentColumn = (def: ResourceDefinition) => (def.fields[def.tree!.parent] as ForeignKeyField).column;

/** The given ids and all their descendants, in one recursive statement. */
export async function descendantIds(exec: Executor, def: ResourceDefinition, ids: string[]): Promise<string[]> {
  const parent = parentColumn(def);
  // The tree's shape: hidden objects between the given ones and their descendants do not cut it.
  const rows = await exec.query<{ id: string }>(sql`WITH RECURSIVE d (id) AS (
      SELECT ${ident('id')} ${unscoped(def).from(inList(ident('id'), ids))}
      UNION ALL
      SELECT c.${ident('id')} FROM ${unscoped(def, 'c').table} JOIN d ON c.${ident(parent)} = d.id
    ) SELECT DISTINCT id FROM d`);
  return rows.map((r) => String(r.id));
}

/**
 * The stored parent of each of `ids` and of all their ancestors, in one recursive statement for
 * a whole batch (a node without a parent maps to null). A batch moving nodes walks these chains
 * to check that no node ends up under itself.
 */
export async function storedAncestry(exec: Executor, def: ResourceDefinition, ids: string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  if (!ids.length) return out;
  const parent = parentColumn(def);
  // UNION, not UNION ALL: chains that meet are walked once from where they meet.
  const rows = await exec.query<{ id: string; parent: string | null }>(sql`WITH RECURSIVE up (id, parent) AS (
      SELECT ${ident('id')}, ${ident(parent)} ${unscoped(def).from(inList(ident('id'), ids))}
      UNION
      SELECT p.${ident('id')}, p.${ident(parent)} FROM ${unscoped(def, 'p').table} JOIN up ON p.${ident('id')} = up.parent
    ) SELECT id, parent FROM up`);
  for (const r of rows) out.set(String(r.id), r.parent == null ? null : String(r.parent));
  return out;
}

export interface Ancestry {
  /** Ancestors' names, root first. */
  names: string[];
  depth: number;
}

/**
 * Ancestor chains of the given rows (for tree display "A → B → C", tree_depth and natural
 * keys), in one recursive statement for the whole page. Every ancestor is walked; `names`, the
 * ancestors on alias `a` that may lend their names (all by default).
 */
export async function loadAncestry(exec: Executor, def: ResourceDefinition, rows: Row[], names: Rows = unscoped(def, 'a'), nameColumn = 'name'): Promise<Map<string, Ancestry>> {
  const parent = parentColumn(def);
  const out = new Map<string, Ancestry>();
  const withParent = rows.filter((r) => r[parent]);
  rows.forEach((r) => out.set(String(r.id), { names: [], depth: 0 }));
  if (!withParent.length) return out;
  const result = await exec.query<{ id: string; lvl: number; name: string; vis: number }>(sql`WITH RECURSIVE up (id, anc, lvl) AS (
      SELECT ${ident('id')}, ${ident(parent)}, 1 ${unscoped(def).from(inList(ident('id'), withParent.map((r) => r.id)))}
      UNION ALL
      SELECT up.id, p.${ident(parent)}, up.lvl + 1 FROM up ${unscoped(def, 'p').join(sql`p.${ident('id')} = up.anc`)} WHERE up.anc IS NOT NULL
    ) SELECT up.id AS id, up.lvl AS lvl, a.${ident(nameColumn)} AS name, CASE WHEN ${names.visible} THEN 1 ELSE 0 END AS vis
      FROM up ${unscoped(def, 'a').join(sql`a.${ident('id')} = up.anc`)}`);
  const byId = new Map<string, { lvl: number; name: string; vis: boolean }[]>();
  for (const r of result) append(byId, String(r.id), { lvl: Number(r.lvl), name: r.name, vis: Number(r.vis) === 1 });
  for (const [id, list] of byId) {
    list.sort((a, b) => b.lvl - a.lvl);
    // Ancestors the requester may not view count towards the depth but lend no names.
    out.set(id, { names: list.filter((x) => x.vis).map((x) => x.name), depth: list.length });
  }
  return out;
}
