import { Injectable } from '@nestjs/common';
import type { Executor, Row } from '../../database/db';
import { and, ident, inList, isTrue, join, raw, RenderedSql, Sql, sql } from '../../database/sql';
import type { Action, RequestContext } from '../context';
import { objectType, ResourceDefinition } from './definition';
import { BadRequestError, NotFoundError, ValidationError } from './errors';

import { first, INCLUDE_OPTIONS, pageLink, parseBool, parseDepth, parseInclude, parsePage, Query } from './query/params';
import { orderIndexHint, readWhole, storedRows, unscoped } from './query/rows';
import { ancestryKept } from './serialize/kept-ancestry';
import { filterCompiler, scopeIsOpen, visibleRows } from './query/scope';
import { orderBy } from './query/sort';
import { isUuid, parseNaturalKey, parseUuid } from './query/values';
import { naturalKeyConstraint } from './serialize/references';
import { PAGE_CTE, ReadOptions, Representer, withPage } from './serialize/representer';
import { isKeptExtras, type PageExtras } from './serialize/page-extras';
import { keptValues, rowWithKeptValues } from './serialize/kept-values';
import { ResourceWriter } from './resource-writer';

const DEFERRED_PAGING_OFFSET = 1000;
/** MySQL's error for an index hint naming no index of the table (ER_KEY_DOES_NOT_EXITS). */
const MYSQL_NO_SUCH_KEY = 1176;

/**
 * A list's total is counted inside the page's own statement (one statement fewer) when the last
 * total of the same count statement was at most this; a larger one is counted on a connection
 * of its own, alongside the page, where it does not add its time to the page's.
 */
export const LIST_COUNTING = { inlineMax: 10_000 };
/** How many count statements' last totals are remembered (the oldest forgotten first). */
const REMEMBERED_TOTALS = 1_000;
/** The column that carries an inline total. */
const TOTAL_COLUMN = '__total';

export interface ListResult {
  count: number;
  next: string | null;
  previous: string | null;
  results: Record<string, unknown>[];
}

/** The name the reference uses in "No <Model> matches the given query." */
export const modelClassName = (def: ResourceDefinition) => def.className;

/**
 * The resource pipeline for every model (DESIGN.md): scope -> filters -> sort -> paginate ->
 * load -> depth -> serialize for reads; parse -> resolve -> validate -> rules -> save ->
 * re-check scope -> serialize for writes, each write in one transaction.
 */
@Injectable()
export class ResourceService {
  readOptions(q: Query, method: string): ReadOptions {
    return { depth: parseDepth(q, method), excludeM2m: parseBool(q, 'exclude_m2m'), include: parseInclude(q) };
  }

  /**
   * A list's rows: `FROM <the visible rows> WHERE <filters>` (also used by CSV export); `within`:
   * an endpoint's own condition over the alias (the connected ports of a connection list).
   */
  async listFrom(ctx: RequestContext, exec: Executor, def: ResourceDefinition, q: Query, alias = 't', within?: Sql, hint?: () => Promise<Sql | null>): Promise<Sql> {
    const [rows, filters] = await Promise.all([visibleRows(ctx, exec, def, alias), filterCompiler(ctx, exec).fromQuery(def, q, alias)]);
    // Every row, in an index's order (`orderIndexHint`): only where nothing filters them.
    if (hint && !within && !rows.restricted && isTrue(and([filters]))) {
      const h = await hint();
      if (h) return rows.fromHinted(h);
    }
    return rows.from(filters, within);
  }

  /**
   * A page of `def`'s objects. `asWritten`: for a page that is only written as the response (the
   * generated list routes), its results are made as they are written (Representer.represent's
   * `onlyWritten`); anything else that reads them takes `representations(results)`.
   */
  async list(ctx: RequestContext, def: ResourceDefinition, q: Query, path: string, within?: Sql, asWritten = false): Promise<ListResult> {
    try {
      return await this.listOnce(ctx, def, q, path, within, asWritten, false);
    } catch (err) {
      // An index a hint named is gone (a migration of another instance): named again from the database.
      const e = err as { errno?: number; driverError?: { errno?: number } };
      if ((e.errno ?? e.driverError?.errno) !== MYSQL_NO_SUCH_KEY) throw err;
      return this.listOnce(ctx, def, q, path, within, asWritten, true);
    }
  }

  private async listOnce(ctx: RequestContext, def: ResourceDefinition, q: Query, path: string, within: Sql | undefined, asWritten: boolean, forget: boolean): Promise<ListResult> {
    const exec = ctx.db;
    const opts = this.readOptions(q, 'GET');
    const { limit, offset } = parsePage(q, ctx.settings);
    const order = (alias: string) => orderBy(ctx, exec, def, q, alias);
    const deferred = limit !== null && offset >= DEFERRED_PAGING_OFFSET;
    const pageOrder = await order('t');
    // A deep page's ids are read in the index's order too (index-only): MariaDB otherwise chose,
    // at some executions of the same prepared statement, to read the table whole and sort it
    // (a page of 1,000 addresses at offset 50,000: 6 ms through the index, 63 ms sorted).
    const hint = limit !== null ? () => orderIndexHint(exec, def, pageOrder, 't', forget) : undefined;
    const from = await this.listFrom(ctx, exec, def, q, 't', within, hint);
    // The limit is written into the text (a parsed integer; one prepared statement per page
    // size): with `LIMIT $1` PostgreSQL found no generic plan as good as one made for the value,
    // and planned the page statement again on every request (~1.5 ms of a 50-row page's 2.5 ms).
    const page = limit === null ? sql`` : sql` LIMIT ${Number.isSafeInteger(limit) ? raw(String(limit)) : limit} OFFSET ${offset}`;
    const representer = new Representer(ctx, exec);
    const countStatement = sql`SELECT COUNT(*) AS n ${from}`;
    // The same statement text (model, filters and scope alike) had a small total last time: count
    // inside the page statement. Otherwise (or not known yet) alongside it, on another connection.
    const totalKey = exec.dialect.render(countStatement).text;
    const inline = limit !== null && (this.totals.get(totalKey) ?? Infinity) <= LIST_COUNTING.inlineMax;
    const counting = inline || limit === null ? null : exec.query<{ n: number }>(countStatement);
    counting?.catch(() => undefined);
    const total = inline ? sql`, (${countStatement}) AS ${ident(TOTAL_COLUMN)}` : sql``;
    // The page's count fields and many-to-many ids (Representer.pageExtras) come with it,
    // computed over the page's rows only.
    const extras = await representer.pageExtras(def, opts);
    const { columns } = extras;
    let select: Sql;
    if (deferred) {
      // Deep pages: find the page's ids first (an index-only scan or sort), then the rows,
      // instead of reading whole rows of the table to skip most of them (MySQL sorted them;
      // PostgreSQL read each skipped row from the table: a page of 1,000 addresses at offset
      // 97,000 took 26 ms of the server's CPU, 19 so). The page's ids come from the visible rows;
      // `o` reads those rows by id.
      const ids = sql`SELECT t.${ident('id')} ${from} ORDER BY ${pageOrder}${page}`;
      select = sql`SELECT o.*${total} FROM ${exec.dialect.pageRows(unscoped(def, 'o').table, ids)} ORDER BY ${await order('o')}`;
    } else {
      select = sql`SELECT t.*${total} ${from} ORDER BY ${pageOrder}${page}`;
    }
    const rows = await exec.query(
      columns.length ? withPage(select, sql`SELECT ${ident(PAGE_CTE)}.*, ${join(columns)}`, extras, sql` ORDER BY ${await order(PAGE_CTE)}`) : select,
    );
    const results = await representer.represent(def, rows, opts, asWritten);
    let count: number;
    if (counting) count = Number((await counting)[0].n);
    else if (limit === null) count = rows.length; // every row is on the page
    else if (rows.length) count = Number(rows[0][TOTAL_COLUMN]);
    else if (offset === 0) count = 0;
    else count = Number((await exec.query<{ n: number }>(countStatement))[0].n); // a page past the end
    this.remember(totalKey, count);
    const base = ctx.url(path);
    let next: string | null = null;
    let previous: string | null = null;
    if (limit !== null) {
      if (offset + limit < count) next = pageLink(base, q, { limit: String(limit), offset: String(offset + limit) });
      if (offset > 0) previous = pageLink(base, q, { limit: String(limit), offset: offset - limit > 0 ? String(offset - limit) : null });
    }
    return { count, next, previous, results };
  }

  /** The last total of each count statement (by its text), for `list` to choose where to count. */
  private readonly totals = new Map<string, number>();

  private remember(key: string, total: number): void {
    this.totals.delete(key);
    if (this.totals.size >= REMEMBERED_TOTALS) this.totals.delete(this.totals.keys().next().value!);
    this.totals.set(key, total);
  }

  /**
   * Loads one object inside the requester's scope for an action, by UUID or natural key; 404
   * otherwise. `extras`: what its representation needs besides the row (Representer.pageExtras),
   * read by the same statement, as a list page does.
   */
  async findOne(ctx: RequestContext, exec: Executor, def: ResourceDefinition, idOrKey: string, action: Action, lock = false, extras?: PageExtras): Promise<Row> {
    let statement: Sql;
    if (!lock && extras && isUuid(idOrKey) && isKeptExtras(extras) && (await scopeIsOpen(ctx, { def, action, base: true }))) {
      statement = await this.renderedOne(ctx, exec, def, action, extras, parseUuid(idOrKey));
    } else {
      const visible = await visibleRows(ctx, exec, def, 't', action);
      const byId = isUuid(idOrKey);
      let match;
      if (byId) match = sql`${ident('t', 'id')} = ${parseUuid(idOrKey)}`;
      else {
        const constraint = naturalKeyConstraint(def, parseNaturalKey(idOrKey));
        if (!constraint) throw this.notFound(def);
        match = await filterCompiler(ctx, exec).fromConstraint(def, constraint, 't', 'reference').catch(() => {
          throw this.notFound(def);
        });
      }
      statement = oneStatement(exec, visible.from(match), lock, extras, byId);
    }
    // A locked row (read whole, for a write) is kept for the write's change records.
    const rows = lock && !extras ? await readWhole(exec, def, () => exec.query(statement)) : await exec.query(statement);
    if (rows.length !== 1) throw this.notFound(def);
    return rows[0];
  }

  /** Statements of one object by id, rendered once per kept extras (so per definition and request shape) and action. */
  private readonly rendered = new WeakMap<PageExtras, Map<Action, { text: string; params: unknown[]; at: number }>>();

  /**
   * `findOne`'s statement for an id where every scope it takes is open (kept extras, and the
   * object's own rows): the same text whoever asks, rendered once and run with the id in its
   * place. Building and rendering it was ~8 % of a detail's CPU.
   */
  private async renderedOne(ctx: RequestContext, exec: Executor, def: ResourceDefinition, action: Action, extras: PageExtras, id: string): Promise<Sql> {
    let byAction = this.rendered.get(extras);
    if (!byAction) this.rendered.set(extras, (byAction = new Map()));
    let one = byAction.get(action);
    if (!one) {
      const marker = {};
      const visible = await visibleRows(ctx, exec, def, 't', action);
      const { text, params } = exec.dialect.render(oneStatement(exec, visible.from(sql`${ident('t', 'id')} = ${marker}`), false, extras, true));
      one = { text, params, at: params.indexOf(marker) };
      byAction.set(action, one);
    }
    const params = [...one.params];
    params[one.at] = id;
    return new RenderedSql(exec.dialect.name, one.text, params);
  }

  notFound(def: ResourceDefinition): NotFoundError {
    return new NotFoundError(`No ${modelClassName(def)} matches the given query.`);
  }

  async retrieve(ctx: RequestContext, def: ResourceDefinition, id: string, q: Query) {
    const opts = this.readOptions(q, 'GET');
    const representer = new Representer(ctx, ctx.db);
    // Counts, display rows and many-to-many ids in the object's own statement, as subqueries of
    // its row; a tree's ancestry too, unless the object's chain is kept (kept-ancestry.ts).
    const kept = def.tree && isUuid(id) && (await ancestryKept(ctx, ctx.db, def, parseUuid(id)));
    const extras = await representer.pageExtras(def, opts, 'row', !kept);
    // On MySQL/MariaDB its counts and id lists kept, where nothing they read changed since (kept-values.ts).
    const values = isUuid(id) ? keptValues(ctx, def) : null;
    const find = (x: PageExtras) => this.findOne(ctx, ctx.db, def, id, 'view', false, x);
    const row = values
      ? await rowWithKeptValues(ctx, values, extras, parseUuid(id), find, () => representer.pageExtras(def, opts, 'row', !kept, false))
      : await find(extras);
    const [obj] = await representer.represent(def, [row], opts);
    return obj;
  }

  /**
   * Re-reads written objects in the transaction, at depth 0 with opt-in fields (write responses);
   * also for special endpoints that write through ResourceWriter in their own transaction.
   */
  async readBack(ctx: RequestContext, exec: Executor, def: ResourceDefinition, ids: string[]) {
    if (!ids.length) return [];
    // The writer has re-checked the written objects against the scope of its action.
    const rows = await storedRows(exec, def, ids);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    const reps = await new Representer(ctx, exec).represent(def, ids.map((i) => byId.get(i)!).filter(Boolean), {
      depth: 0,
      // As the reference: opt-in blocks are always part of a write's response.
      include: new Set(INCLUDE_OPTIONS),
    });
    return reps;
  }

  async create(ctx: RequestContext, def: ResourceDefinition, body: unknown, q: Query): Promise<unknown> {
    parseDepth(q, 'POST');
    const many = Array.isArray(body);
    const inputs = (many ? body : [body]) as Record<string, unknown>[];
    if (!many && (body === null || typeof body !== 'object')) {
      throw new ValidationError({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${typeName(body)}.`] });
    }
    return ctx.db.transaction(async (tx) => {
      const ids = await new ResourceWriter(ctx, tx).create(def, inputs, many);
      const out = await this.readBack(ctx, tx, def, ids);
      return many ? out : out[0];
    });
  }

  async update(ctx: RequestContext, def: ResourceDefinition, id: string, body: unknown, mode: 'replace' | 'patch', q: Query) {
    parseDepth(q, 'PATCH');
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ValidationError({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${typeName(body)}.`] });
    }
    return ctx.db.transaction(async (tx) => {
      const existing = await this.lockOne(ctx, tx, def, id, 'change', [body as Record<string, unknown>]);
      const ids = await new ResourceWriter(ctx, tx).update(def, [{ existing, input: body as Record<string, unknown> }], mode);
      return (await this.readBack(ctx, tx, def, ids))[0];
    });
  }

  /** Bulk PUT/PATCH on the list URL: a list of {id, ...}; all or nothing. */
  async bulkUpdate(ctx: RequestContext, def: ResourceDefinition, body: unknown, mode: 'replace' | 'patch', q: Query) {
    parseDepth(q, 'PATCH');
    const items = this.bulkItems(def, body);
    return ctx.db.transaction(async (tx) => {
      const rows = await this.loadForBulk(ctx, tx, def, items.map((i) => i.id), 'change', items.map((i) => i.body));
      const changes = items.map((i) => ({ existing: rows.get(i.id)!, input: i.body }));
      const ids = await new ResourceWriter(ctx, tx).update(def, changes, mode);
      return this.readBack(ctx, tx, def, ids);
    });
  }

  async destroy(ctx: RequestContext, def: ResourceDefinition, id: string): Promise<void> {
    await ctx.db.transaction(async (tx) => {
      const row = await this.lockOne(ctx, tx, def, id, 'delete', null);
      await new ResourceWriter(ctx, tx).delete(def, [row]);
    });
  }

  async bulkDestroy(ctx: RequestContext, def: ResourceDefinition, body: unknown): Promise<void> {
    const items = this.bulkItems(def, body);
    await ctx.db.transaction(async (tx) => {
      const rows = await this.loadForBulk(ctx, tx, def, items.map((i) => i.id), 'delete', null);
      await new ResourceWriter(ctx, tx).delete(def, [...rows.values()]);
    });
  }

  /** Validates the shape of a bulk body: a list of objects each with a valid, distinct id. */
  private bulkItems(def: ResourceDefinition, body: unknown): { id: string; body: Record<string, unknown> }[] {
    if (!Array.isArray(body)) {
      throw new ValidationError({ non_field_errors: [`Expected a list of items but got type "${typeName(body)}".`] });
    }
    const errors = body.map((item): Record<string, string[]> => {
      if (!item || typeof item !== 'object' || Array.isArray(item)) return { non_field_errors: [`Invalid data. Expected a dictionary, but got ${typeName(item)}.`] };
      const id = (item as Record<string, unknown>).id;
      if (id === undefined || id === null || id === '') return { id: ['This field is required.'] };
      if (!isUuid(id)) return { id: ['Must be a valid UUID.'] };
      return {};
    });
    if (errors.some((e) => Object.keys(e).length)) throw new ValidationError(errors);
    const seen = new Set<string>();
    return body.map((item: Record<string, unknown>) => {
      const id = parseUuid(item.id);
      if (seen.has(id)) throw new ValidationError({ id: [`The id ${id} is given more than once.`] });
      seen.add(id);
      void def;
      return { id, body: item };
    });
  }

  /** One object for an update or delete, locked (after the definition's wider locks). */
  private async lockOne(ctx: RequestContext, tx: Executor, def: ResourceDefinition, id: string, action: Action, inputs: Record<string, unknown>[] | null): Promise<Row> {
    if (!def.beforeRowLock) return this.findOne(ctx, tx, def, id, action, true);
    const seen = await this.findOne(ctx, tx, def, id, action);
    await def.beforeRowLock([seen], inputs, { ctx, exec: tx });
    return this.findOne(ctx, tx, def, String(seen.id), action, true);
  }

  private async loadForBulk(ctx: RequestContext, tx: Executor, def: ResourceDefinition, ids: string[], action: Action, inputs: Record<string, unknown>[] | null): Promise<Map<string, Row>> {
    const visible = await visibleRows(ctx, tx, def, 't', action);
    const load = async (lock: boolean) => {
      const out = new Map<string, Row>();
      for (let i = 0; i < ids.length; i += 1000) {
        const rows = await tx.query(sql`SELECT t.* ${visible.from(inList(ident('t', 'id'), ids.slice(i, i + 1000)))}${raw(lock ? tx.dialect.forUpdate : '')}`);
        rows.forEach((r) => out.set(String(r.id), r));
      }
      return out;
    };
    if (def.beforeRowLock) await def.beforeRowLock([...(await load(false)).values()], inputs, { ctx, exec: tx });
    // Kept for the write's change records (a delete's read them as they are locked here).
    const out = new Map((await readWhole(tx, def, async () => [...(await load(true)).values()])).map((r) => [String(r.id), r]));
    const missing = ids.filter((id) => !out.has(id));
    if (missing.length) {
      throw new ValidationError({ id: missing.map((m) => `No ${modelClassName(def)} matches the given id: ${m}.`) });
    }
    return out;
  }
}

/**
 * One object's statement: `SELECT t.* <from> LIMIT 2` (two: an ambiguous natural key is a 404),
 * with the extras, or locked. `byId`: `from` matches the primary key (its scope conditions join
 * nothing), so at most one row: no LIMIT, which would keep MariaDB from merging the page's
 * common table expression into the statement (it filled a temporary table with the row: ~0.2 ms
 * of a detail's ~1 ms there).
 */
function oneStatement(exec: Executor, from: Sql, lock: boolean, extras: PageExtras | undefined, byId: boolean): Sql {
  const select = sql`SELECT t.* ${from}${byId ? sql`` : sql` LIMIT 2`}${lock ? raw(exec.dialect.forUpdate) : sql``}`;
  return extras?.columns.length ? withPage(select, sql`SELECT ${ident(PAGE_CTE)}.*, ${join(extras.columns)}`, extras, sql``) : select;
}

export function typeName(v: unknown): string {
  if (v === null) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object') return 'dict';
  return typeof v;
}

export { objectType, BadRequestError, first };
