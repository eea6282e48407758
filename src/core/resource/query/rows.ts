import type { Db, Executor, Row } from '../../../database/db';
import { and, ident, inList, isFalse, isTrue, join, raw, Sql, sql, TRUE } from '../../../database/sql';
import type { ResourceDefinition } from '../definition';

/**
 * A model's rows as a statement may read them (DESIGN rule 2): the only way the engine names a
 * model's table. `visibleRows` (query/scope.ts) gives the rows the requester may see for an
 * action; `unscoped` gives all of them, for the reads that must not be scoped (uniqueness,
 * bookkeeping, what a write reaches) and the writes themselves, and says so where it is used.
 * Every clause a `Rows` renders carries its scope: a caller cannot name the table without it.
 * `test/architecture/scoped-reads.spec.ts` keeps every other file of the engine from naming a
 * model's table.
 */
export class Rows {
  /** `<table> <alias>` (`<table>` alone for unscoped rows without an alias). */
  protected readonly item: Sql;
  /** @internal use `visibleRows` or `unscoped` */
  constructor(
    readonly def: ResourceDefinition,
    readonly alias: string,
    private readonly scope: Sql,
  ) {
    this.item = alias ? sql`${ident(def.table)} ${ident(alias)}` : ident(def.table);
  }

  /** Whether some rows are hidden (false: the scope is open, every row is visible). */
  get restricted(): boolean {
    return !isTrue(this.scope);
  }

  /** Whether every row is hidden (the scope is closed): a statement over these rows finds nothing. */
  get none(): boolean {
    return isFalse(this.scope);
  }

  /** `FROM <table> <alias> WHERE <conds AND scope>` (`WHERE 1=1` when nothing restricts). */
  from(...conds: (Sql | null | undefined)[]): Sql {
    return this.fromJoined(sql``, ...conds);
  }

  /** `FROM <table> <alias> <hint> WHERE <scope>`: the table read as an index hint says (`orderIndexHint`). */
  fromHinted(hint: Sql): Sql {
    return sql`FROM ${this.item}${hint} WHERE ${this.scope}`;
  }

  /** `FROM <table> <alias> <joins> WHERE <conds AND scope>`: `joins` (each with its own scope) between. */
  fromJoined(joins: Sql, ...conds: (Sql | null | undefined)[]): Sql {
    return sql`FROM ${this.item}${joins} WHERE ${and([...conds, this.scope])}`;
  }

  /** `JOIN <table> <alias> ON <on AND scope>` (a `LEFT JOIN` with `left`: a hidden row joins as NULLs). */
  join(on: Sql, left = false): Sql {
    return sql`${raw(left ? 'LEFT JOIN' : 'JOIN')} ${this.item} ON ${and([on, this.scope])}`;
  }

  /** `(SELECT <alias>.<column> FROM ... WHERE <conds AND scope>)`: a sub-select of one column. */
  select(column: string, ...conds: (Sql | null | undefined)[]): Sql {
    return sql`(SELECT ${this.alias ? ident(this.alias, column) : ident(column)} ${this.from(...conds)})`;
  }

  /**
   * The scope as a value on the alias, for a read that keeps the hidden rows of a join it does
   * not filter but marks them (tree ancestry counts hidden ancestors and names none; CSV writes
   * a hidden tag as its id). TRUE when nothing is hidden.
   */
  get visible(): Sql {
    return this.scope;
  }
}

/** Every row of a model's table, and the table itself (`INSERT INTO`, `UPDATE`, recursive walks). */
export class AllRows extends Rows {
  constructor(def: ResourceDefinition, alias: string) {
    super(def, alias, TRUE);
  }

  /** `<table>` or `<table> <alias>`: the FROM item, or the table a statement writes. */
  get table(): Sql {
    return this.item;
  }
}

/**
 * All of a model's rows, whatever the requester may see: for what must not be scoped (uniqueness
 * checks, cascades, bookkeeping, writes, the rows of ids already read within the scope). Without
 * an alias, columns are named unqualified.
 */
export function unscoped(def: ResourceDefinition, alias = ''): AllRows {
  return new AllRows(def, alias);
}

/** Rows within a scope already compiled: for query/scope.ts alone (`visibleRows`). */
export function rowsWithin(def: ResourceDefinition, alias: string, scope: Sql): Rows {
  return new Rows(def, alias, scope);
}

/**
 * The stored rows of `ids` (every column, whatever the requester may see: for ids already read
 * within the scope, or objects a write is recording), in one statement; inside a transaction, a
 * read of the same rows earlier in it is given again while no statement since may have written
 * the table (TxWrites.remembered): a write's change records and its response read the same rows.
 * In the database's order; the rows are shared, and not to be changed.
 */
export async function storedRows(exec: Executor, def: ResourceDefinition, ids: readonly string[]): Promise<Row[]> {
  if (!ids.length) return [];
  return exec.writes?.remembered(def.table, ids) ?? readWhole(exec, def, () => exec.query(sql`SELECT * ${unscoped(def).from(inList(ident('id'), ids as string[]))}`));
}

/**
 * Whether `ids` are all objects of `def` this transaction created, and no statement of it may
 * have put rows into the `related` models' tables (or link tables, by name): then no such row
 * refers to them, and a read of them would find none (TxWrites.noneRelated). Outside a
 * transaction: false.
 */
export function noneRelated(exec: Executor, def: ResourceDefinition, ids: readonly unknown[], related: readonly (ResourceDefinition | string)[]): boolean {
  return !!exec.writes?.noneRelated(def.table, ids, related.map((r) => (typeof r === 'string' ? r : r.table)));
}

/** Notes objects of `def` the transaction has just inserted (for `noneRelated`). */
export function noteCreated(exec: Executor, def: ResourceDefinition, ids: readonly string[]): void {
  exec.writes?.noteCreated(def.table, ids);
}

/**
 * Rows of `def` read whole (`SELECT t.*`, within whatever scope) by `read`, kept inside a
 * transaction for `storedRows` to give again: a delete's change records take the rows its lock
 * read, as a write's response takes those its change records read.
 */
export async function readWhole(exec: Executor, def: ResourceDefinition, read: () => Promise<Row[]>): Promise<Row[]> {
  const w = exec.writes;
  const at = w?.mark() ?? 0;
  const rows = await read();
  w?.remember(def.table, at, rows);
  return rows;
}

/** `orderIndexHint`'s answers, per gateway, table and ORDER BY text (`?sort=` makes many: at most HINTS_KEPT, then forgotten). */
const hints = new WeakMap<Db, Map<string, Sql | null>>();
const HINTS_KEPT = 1000;

/**
 * A hint to read a page's rows in the order of the index that holds its ORDER BY (whose columns
 * are its terms, or all of them but a last `id`: InnoDB ends a secondary index with the primary
 * key), for an unfiltered page of all rows (`Rows.fromHinted`): MariaDB otherwise reads a table
 * of a few thousand rows whole and sorts it, for the page and again each time the page
 * statement's CTE is read (its counts' and tags' subqueries): ~1.5x the database's CPU for a
 * 50-row page of 2,000 locations, ~1.1x for 1,000 rows; a deep page's ids, read first, were at
 * times read whole and sorted too (10x an index-only scan). Null where no index holds the order,
 * where a term is not a plain ascending column, and on PostgreSQL (its planner walks the index).
 * `forget`: the database's index names are read again (a hint named one that is gone).
 */
export async function orderIndexHint(db: Db, def: ResourceDefinition, order: Sql, alias: string, forget = false): Promise<Sql | null> {
  const indexes = await db.indexNames(def.table, forget);
  if (!indexes.length) return null; // PostgreSQL, or a table without secondary indexes
  let byText = hints.get(db);
  if (!byText || forget || byText.size >= HINTS_KEPT) hints.set(db, (byText = new Map()));
  const text = db.dialect.render(order).text;
  const key = `${def.table}\u0000${text}`;
  let hint = byText.get(key);
  if (hint === undefined) {
    hint = null;
    const asc = (columns: string[]) => db.dialect.render(join(columns.map((c) => sql`${ident(alias, c)}${raw(' ASC')}`))).text;
    for (const i of indexes) {
      if (i.name !== 'PRIMARY' && (text === asc(i.columns) || text === asc([...i.columns, 'id']))) {
        hint = db.dialect.forceOrderIndex(i.name);
        break;
      }
    }
    byText.set(key, hint);
  }
  return hint;
}
