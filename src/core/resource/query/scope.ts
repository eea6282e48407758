import { Logger } from '@nestjs/common';
import type { Executor } from '../../../database/db';
import { FALSE, ident, inList, or, Sql, sql, TRUE, and } from '../../../database/sql';
import type { Action, RequestContext, ScopeUse } from '../../context';
import { objectType, ResourceDefinition } from '../definition';
import type { Constraint } from '../fields';
import { FilterCompiler } from './filter-compiler';
import { Rows, rowsWithin } from './rows';
import { ValueError } from './values';

/** A filter compiler for a request: its traversals see what the requester may view. */
export function filterCompiler(ctx: RequestContext, exec: Executor): FilterCompiler {
  return new FilterCompiler(ctx, exec, (def, alias) => visibleRows(ctx, exec, def, alias));
}

/**
 * The rows of a model that the requester may see for an action, on `alias` (DESIGN rule 2): the
 * one way the read path reads a model's rows (query/rows.ts). Every clause it renders carries
 * the permission scope, and the definition's own base scope (own tokens only); `base: false`
 * leaves the latter out, for what a write reaches without naming it (a cascade).
 */
export async function visibleRows(ctx: RequestContext, exec: Executor, def: ResourceDefinition, alias: string, action: Action = 'view', opts: { base?: boolean } = {}): Promise<Rows> {
  return rowsWithin(def, alias, await scopeCondition(ctx, exec, def, action, alias, opts));
}

/** The constraint sets that bound what the requester may do with a model (null: all). */
export function scopeConstraints(ctx: RequestContext, def: ResourceDefinition, action: Action): Promise<Constraint[] | null> {
  const type = objectType(def);
  return ctx.memo(`scope:${type}:${action}`, () => ctx.permissions.constraints(ctx.principal, type, action));
}

/**
 * The permission scope as a condition on `alias`: what `visibleRows` ANDs into every clause.
 * Not exported: a caller that held the condition apart from the rows could forget it.
 */
async function scopeCondition(ctx: RequestContext, exec: Executor, def: ResourceDefinition, action: Action, alias: string, opts: { base?: boolean } = {}): Promise<Sql> {
  for (const uses of ctx.scopeListeners) uses.push({ def, action, base: opts.base !== false });
  const constraints = await scopeConstraints(ctx, def, action);
  const compiler = filterCompiler(ctx, exec);
  // The base scope (own tokens only) bounds what the API lets a client name; `base: false` is
  // the object permissions alone, for what a write reaches without naming it (a cascade).
  const base = opts.base === false ? null : def.baseScope?.(ctx);
  const baseSql = and([base ? await compiler.fromConstraint(def, base, alias) : TRUE, await inherited(ctx, exec, def, alias)]);
  if (constraints === null) return baseSql;
  if (!constraints.length) return FALSE;
  const parts = await Promise.all(constraints.map((c) => (Object.keys(c).length ? compileStored(compiler, def, c, alias) : TRUE)));
  return and([baseSql, or(parts)]);
}

/**
 * Whether the requester sees every row of a model for an action, as `visibleRows` would give
 * them (its scope is TRUE), told without building the condition: no constraint, no base scope,
 * and not owned through another object (notes: their owners' scopes). False may be said of an
 * open scope (a base scope that holds no condition), never true of a closed one.
 */
export async function scopeIsOpen(ctx: RequestContext, use: ScopeUse): Promise<boolean> {
  if (use.def.scopeVia || (use.base && use.def.baseScope?.(ctx))) return false;
  return (await scopeConstraints(ctx, use.def, use.action)) === null;
}

const logger = new Logger('Permissions');

/**
 * A stored constraint that no longer compiles (its custom field was deleted, its field does not
 * exist in the requested API version) grants nothing: fail closed, never a 500.
 */
async function compileStored(compiler: FilterCompiler, def: ResourceDefinition, c: Constraint, alias: string): Promise<Sql> {
  try {
    return await compiler.fromConstraint(def, c, alias);
  } catch (e) {
    if (!(e instanceof ValueError)) throw e;
    logger.warn(`A permission constraint on ${objectType(def)} grants nothing: ${e.message} (${JSON.stringify(c)})`);
    return FALSE;
  }
}

/**
 * Objects that belong to another object through a generic foreign key (notes) are visible only
 * with that object: the owner's view scope, per owner type.
 */
async function inherited(ctx: RequestContext, exec: Executor, def: ResourceDefinition, alias: string): Promise<Sql> {
  const f = def.scopeVia ? def.fields[def.scopeVia] : undefined;
  if (!f || f.kind !== 'gfk') return TRUE;
  const owners = ctx.registry.all().filter((d) => !f.allowed || f.allowed(d));
  const parts: Sql[] = [];
  let restricted = false;
  for (const owner of owners) {
    const o = await visibleRows(ctx, exec, owner, 'o');
    if (o.restricted) restricted = true;
    parts.push(
      o.restricted
        ? sql`(${ident(alias, f.typeColumn)} = ${objectType(owner)} AND ${ident(alias, f.idColumn)} IN ${o.select('id')})`
        : sql`${ident(alias, f.typeColumn)} = ${objectType(owner)}`,
    );
  }
  return restricted ? or(parts) : TRUE;
}

/**
 * Which of these objects of a model the requester may view (one statement): for a message that
 * names a related object only where the requester may see it, and says something neutral
 * otherwise (never a hidden object's name).
 */
export async function visibleIds(ctx: RequestContext, exec: Executor, def: ResourceDefinition, ids: unknown[]): Promise<Set<string>> {
  const list = [...new Set(ids.filter((x) => x !== null && x !== undefined && x !== '').map(String))];
  if (!list.length) return new Set();
  const rows = await visibleRows(ctx, exec, def, 'v');
  if (!rows.restricted) return new Set(list);
  const found = await exec.query<{ id: string }>(sql`SELECT ${ident('v', 'id')} AS ${ident('id')} ${rows.from(inList(ident('v', 'id'), list))}`);
  return new Set(found.map((r) => String(r.id)));
}
