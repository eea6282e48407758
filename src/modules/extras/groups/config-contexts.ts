import type { Executor } from '../../../database/db';
import { ident, Sql, sql } from '../../../database/sql';
import type { RequestContext } from '../../../core/context';
import { objectType, ResourceDefinition } from '../../../core/resource/definition';
import { FilterCompiler } from '../../../core/resource/query/filter-compiler';
import { unscoped } from '../../../core/resource/query/rows';
import type { GroupMembers } from '../config-contexts/render';
import { dimensionThrough, DIMENSIONS } from '../config-contexts/dimensions';
import { groupCondition, groupDefinitions, GroupReader } from './members';

/**
 * The dynamic groups of a model's content type that some config context names, each with its
 * members as a sub-select, for config-contexts/render.ts. Read whoever the requester is, as the
 * whole render is (the reference's annotation reads contexts unrestricted and its membership is
 * computed unrestricted): groups, memberships, associations and the groups' filters see every
 * object. Costs one statement (which groups are linked), and when some are, the groups'
 * definitions (two at most) and the name lookups of their filters: per request, whatever the
 * page size or the depth of the groups.
 */
export function linkedGroupMembers(ctx: RequestContext, exec: Executor, def: ResourceDefinition): Promise<GroupMembers[]> {
  const type = objectType(def);
  return ctx.memo(`config-context-groups:${type}`, async () => {
    const dim = DIMENSIONS.find((d) => d.groups);
    if (!dim) return [];
    const th = dimensionThrough(dim);
    // The link table of the contexts' `dynamic_groups`: which groups any context names.
    const linked = await exec.query<{ id: string }>(sql`SELECT DISTINCT ${ident(th.target)} AS ${ident('id')} FROM ${ident(th.table)}`);
    if (!linked.length) return [];
    // Every object, as the render itself: the compiler's traversals and name lookups read all rows.
    const compiler = new FilterCompiler(ctx, exec, async (d, alias) => unscoped(d, alias));
    const reader = (alias: string): GroupReader => ({
      ctx,
      exec,
      view: 'all',
      rows: async (d, a) => unscoped(d, a),
      term: (key, values) => compiler.fromQuery(def, new Map([[key, values]]), alias),
      id: ident(alias, 'id'),
    });
    const defs = await groupDefinitions(reader('dgm'), type);
    const out: GroupMembers[] = [];
    let i = 0;
    for (const { id } of linked) {
      if (!defs.groups.has(String(id))) continue;
      const alias = `dgm${i++}`;
      const cond: Sql = await groupCondition(reader(alias), defs, String(id));
      out.push({ id: String(id), members: unscoped(def, alias).select('id', cond) });
    }
    return out;
  });
}
