import type { Executor } from '../../../database/db';
import { and, FALSE, ident, or, Sql, sql, TRUE } from '../../../database/sql';
import type { RequestContext } from '../../../core/context';
import type { ResourceDefinition } from '../../../core/resource/definition';
import { ValidationError } from '../../../core/resource/errors';
import { UnknownFilterError } from '../../../core/resource/extension';
import type { Rows } from '../../../core/resource/query/rows';
import { ValueError } from '../../../core/resource/query/values';
import { parseJsonObject } from '../../../core/resource/serialize/values';
import { filterParams } from '../relationships/definitions';
import { GROUP_TYPE, GroupInfo, MEMBERSHIP_TYPE, MembershipInfo, STATIC_ASSOCIATION_TYPE } from './definitions';

/**
 * How membership reads what it needs: the groups, memberships and static associations (`rows`:
 * in a query those the requester may view, for config contexts all of them), and a filter term
 * of the member model compiled on the member's alias (`term`), whose id column is `id`.
 */
export interface GroupReader {
  ctx: RequestContext;
  exec: Executor;
  /** Memo key of the definitions read (they depend on what `rows` sees). */
  view: string;
  rows(def: ResourceDefinition, alias: string): Promise<Rows>;
  term(key: string, values: string[]): Promise<Sql | null>;
  id: Sql;
}

/** The groups of one content type and the children of its dynamic-set groups. */
export interface GroupDefinitions {
  groups: Map<string, GroupInfo>;
  children: Map<string, MembershipInfo[]>;
}

const model = (ctx: RequestContext, type: string) => ctx.registry.get(type)!;

/**
 * Every group of a content type with its filter, and every membership under them: two
 * statements, whatever the depth of the groups, once per request (and view).
 */
export function groupDefinitions(r: GroupReader, type: string): Promise<GroupDefinitions> {
  return r.ctx.memo(`dynamic-groups:${r.view}:${type}`, async () => {
    const groups = await r.rows(model(r.ctx, GROUP_TYPE), 'dg');
    const ofType = sql`${ident('dg', 'content_type')} = ${type}`;
    const rows = await r.exec.query<Record<string, unknown>>(
      sql`SELECT ${ident('dg', 'id')}, ${ident('dg', 'name')}, ${ident('dg', 'group_type')}, ${ident('dg', 'filter')} ${groups.from(ofType)}`,
    );
    const out: GroupDefinitions = { groups: new Map(), children: new Map() };
    for (const g of rows) {
      let filter: Record<string, unknown> = {};
      try {
        filter = parseJsonObject(g.filter);
      } catch {
        filter = {};
      }
      out.groups.set(String(g.id), { id: String(g.id), name: String(g.name), contentType: type, groupType: String(g.group_type), filter });
    }
    if (![...out.groups.values()].some((g) => g.groupType === 'dynamic-set')) return out;
    const links = await r.rows(model(r.ctx, MEMBERSHIP_TYPE), 'dm');
    const parents = groups.select('id', ofType);
    const memberships = await r.exec.query<Record<string, unknown>>(
      sql`SELECT ${ident('dm', 'parent_group_id')}, ${ident('dm', 'group_id')}, ${ident('dm', 'operator')}, ${ident('dm', 'weight')} ${links.from(sql`${ident('dm', 'parent_group_id')} IN ${parents}`)}`,
    );
    for (const m of memberships) {
      const parent = String(m.parent_group_id);
      const list = out.children.get(parent) ?? [];
      list.push({ parent, group: String(m.group_id), operator: String(m.operator), weight: Number(m.weight) });
      out.children.set(parent, list);
    }
    // The reference's order: by weight, then the child group (its name: groups are ordered by content type, then name).
    const name = (id: string) => out.groups.get(id)?.name ?? '';
    for (const list of out.children.values()) list.sort((a, b) => a.weight - b.weight || (name(a.group) < name(b.group) ? -1 : name(a.group) > name(b.group) ? 1 : 0));
    return out;
  });
}

/** A filter that no longer compiles (a named object deleted since, or hidden) selects nothing, never a 500. */
async function filterCondition(r: GroupReader, filter: Record<string, unknown>): Promise<Sql> {
  const parts: Sql[] = [];
  try {
    for (const [key, values] of filterParams(filter)) {
      // A group's filter naming groups could name itself: refused when saved, nothing here.
      if (key.startsWith('dynamic_groups')) return FALSE;
      const part = await r.term(key, values);
      if (part) parts.push(part);
    }
  } catch (e) {
    if (e instanceof ValueError || e instanceof ValidationError || e instanceof UnknownFilterError) return FALSE;
    throw e;
  }
  // No filter at all: every object, as the reference's empty Q().
  return parts.length ? and(parts) : TRUE;
}

/**
 * The condition on the member's row that holds for the members of a group, as SQL, so that a
 * list of members is one statement however deep the group: a filter-defined group is its
 * filter; a static group is `id IN` its associations; a dynamic-set group folds its children
 * in weight order as the reference does (the first child alone, or its complement for a
 * difference; then union OR, intersection AND, difference AND NOT), each child's condition
 * wrapped so that NULL means "not a member". A dynamic-set group without children holds
 * nothing (the reference's empty Q() would hold everything). A cycle holds nothing.
 */
export async function groupCondition(r: GroupReader, defs: GroupDefinitions, id: string, seen: Set<string> = new Set(), done = new Map<string, Sql>()): Promise<Sql> {
  // A group met twice in a tree is compiled once (its filter's name lookups run once).
  const known = done.get(id);
  if (known) return known;
  const cond = await compileGroup(r, defs, id, seen, done);
  done.set(id, cond);
  return cond;
}

async function compileGroup(r: GroupReader, defs: GroupDefinitions, id: string, seen: Set<string>, done: Map<string, Sql>): Promise<Sql> {
  const g = defs.groups.get(id);
  if (!g || seen.has(id)) return FALSE;
  if (g.groupType === 'dynamic-filter') return filterCondition(r, g.filter);
  if (g.groupType === 'static') {
    const links = await r.rows(model(r.ctx, STATIC_ASSOCIATION_TYPE), 'sg');
    return sql`${r.id} IN ${links.select('associated_object_id', sql`${ident('sg', 'dynamic_group_id')} = ${g.id}`, sql`${ident('sg', 'associated_object_type')} = ${g.contentType}`)}`;
  }
  if (g.groupType !== 'dynamic-set') return FALSE;
  const inner = new Set(seen).add(id);
  let query: Sql | null = null;
  for (const child of defs.children.get(id) ?? []) {
    const next = sql`COALESCE((${await groupCondition(r, defs, child.group, inner, done)}), ${FALSE})`;
    if (child.operator === 'union') query = query ? or([query, next]) : next;
    else if (child.operator === 'intersection') query = query ? and([query, next]) : next;
    else if (child.operator === 'difference') query = query ? and([query, sql`NOT ${next}`]) : sql`NOT ${next}`;
  }
  return query ?? FALSE;
}

/** The members of any of the groups (ids), as a condition on the member's row. */
export async function membersCondition(r: GroupReader, type: string, ids: string[]): Promise<Sql> {
  const defs = await groupDefinitions(r, type);
  const parts: Sql[] = [];
  const done = new Map<string, Sql>();
  for (const id of ids) parts.push(sql`COALESCE((${await groupCondition(r, defs, id, new Set(), done)}), ${FALSE})`);
  return parts.length ? or(parts) : FALSE;
}
