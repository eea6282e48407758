import type { Executor, Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import type { ResourceDefinition } from '../definition';
import type { ForeignKeyField } from '../fields';
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
 * keys), in one recursive statement for the whole batch. Every ancestor is walked; `names`, the
 * ancestors on alias `a` that may lend their names (all by default).
 *
 * The statement walks up from the rows' distinct parents, each ancestor once however many rows
 * share it (UNION: chains that meet are walked once from where they meet), and the chains are
 * put together here: a thousand new locations under one site are one ancestor to read, not a
 * thousand chains (a bulk create's read-back and change records each took ~8 ms for those).
 */
export async function loadAncestry(exec: Executor, def: ResourceDefinition, rows: Row[], names: Rows = unscoped(def, 'a'), nameColumn = 'name'): Promise<Map<string, Ancestry>> {
  const parent = parentColumn(def);
  const out = new Map<string, Ancestry>();
  const parents = new Set<string>();
  for (const r of rows) if (r[parent] != null) parents.add(String(r[parent]));
  if (!parents.size) {
    for (const r of rows) out.set(String(r.id), { names: [], depth: 0 });
    return out;
  }
  // Each level reads its ancestors' names as it walks (a join for the walk and another for the
  // names afterwards made PostgreSQL hash the whole table: see page-extras' ancestryExtras).
  const node = sql`a.${ident('id')}, a.${ident(parent)}, a.${ident(nameColumn)}, CASE WHEN ${names.visible} THEN 1 ELSE 0 END`;
  const result = await exec.query<{ id: string; anc: string | null; name: string; vis: number }>(sql`WITH RECURSIVE up (id, anc, name, vis) AS (
      SELECT ${node} ${unscoped(def, 'a').from(inList(ident('a', 'id'), [...parents]))}
      UNION
      SELECT ${node} FROM up ${unscoped(def, 'a').join(sql`a.${ident('id')} = up.anc`)}
    ) SELECT id, anc, name, vis FROM up`);
  const nodes = new Map(result.map((r) => [String(r.id), { anc: r.anc == null ? null : String(r.anc), name: r.name, vis: Number(r.vis) === 1 }]));
  // Each distinct parent's chain once, root first.
  const chains = new Map<string, Ancestry>();
  const chainOf = (id: string): Ancestry => {
    let chain = chains.get(id);
    if (chain) return chain;
    const names: string[] = [];
    let depth = 0;
    // At most one step per ancestor read: a cycle (which writes never make) ends the walk.
    for (let at: string | null = id, steps = 0; at !== null && steps <= nodes.size; steps++) {
      const node = nodes.get(at);
      if (!node) break;
      depth++;
      // Ancestors the requester may not view count towards the depth but lend no names.
      if (node.vis) names.push(node.name);
      at = node.anc;
    }
    chain = { names: names.reverse(), depth };
    chains.set(id, chain);
    return chain;
  };
  for (const r of rows) out.set(String(r.id), r[parent] == null ? { names: [], depth: 0 } : chainOf(String(r[parent])));
  return out;
}
