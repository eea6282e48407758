/**
 * What one transaction has written, as far as a read of its own new rows needs to know: the
 * tables its statements may have put rows into or changed rows of, and the ids of the rows it
 * created (noted by the writer that inserted them).
 *
 * A row that refers to an object created in this transaction can only be in a table this
 * transaction wrote: no other transaction can know the new id before this one commits (ids are
 * random), and the database's own cascades only delete or clear. So the related rows of new
 * objects in a table this transaction never wrote (a new location's devices, tags, prefixes) are
 * known to be none without a statement: a bulk create's response and change records read no
 * counts, tags or links of their objects (on MariaDB the counts of 1,000 new locations took
 * ~40 ms of a ~300 ms create).
 */
export class TxWrites {
  /** Writing statements so far; per table, the number of the last that may have written it. */
  private writes = 0;
  private readonly lastWrite = new Map<string, number>();
  /** The number of the last statement that may have written a table it could not tell (any table). */
  private anyTable = 0;
  private readonly created = new Map<string, Set<string>>();
  /** Per table, the rows a read found (`remember`) and the number of writes before it began. */
  private readonly reads = new Map<string, { at: number; rows: Map<string, StoredRow> }>();

  /** Tables it may have put rows into or changed rows of; whether it may have done so in a table it could not tell. */
  private readonly filled = new Set<string>();
  private anyFilled = false;

  /** Notes a statement the transaction runs (its rendered text), as it starts. */
  statement(text: string): void {
    const { table, deletes } = writtenTable(text) ?? {};
    if (table === undefined) return;
    this.writes++;
    if (table === null) this.anyTable = this.writes;
    else this.lastWrite.set(table, this.writes);
    if (deletes) return;
    if (table === null) this.anyFilled = true;
    else this.filled.add(table);
  }

  /** Where a read that starts now stands: give it to `remember` with the rows it found. */
  mark(): number {
    return this.writes;
  }

  /**
   * Keeps the rows of `table` a read found, stored rows whole (every column), for `remembered`
   * to give again while no statement may have written the table since the read began (`at`,
   * from `mark`). The latest read of a table is kept; its rows must not be changed by anyone.
   */
  remember(table: string, at: number, rows: StoredRow[]): void {
    this.reads.set(table, { at, rows: new Map(rows.map((r) => [String(r.id), r])) });
  }

  /** The rows of `ids` as the last remembered read of `table` found them, if it found them all and nothing may have written them since. */
  remembered(table: string, ids: readonly string[]): StoredRow[] | undefined {
    const read = this.reads.get(table);
    if (!read || this.anyTable > read.at || (this.lastWrite.get(table) ?? 0) > read.at) return undefined;
    const out: StoredRow[] = [];
    for (const id of ids) {
      const row = read.rows.get(id);
      if (!row) return undefined;
      out.push(row);
    }
    return out;
  }

  /** Notes rows this transaction inserted into `table`. */
  noteCreated(table: string, ids: Iterable<string>): void {
    let set = this.created.get(table);
    if (!set) this.created.set(table, (set = new Set()));
    for (const id of ids) set.add(id);
  }

  /**
   * Whether the objects `ids` of `table` are all rows this transaction created and no statement
   * of it may have written any of `related`: then no row of those tables refers to any of them.
   */
  noneRelated(table: string, ids: readonly unknown[], related: readonly string[]): boolean {
    if (this.anyFilled || !ids.length || related.some((t) => this.filled.has(t))) return false;
    const set = this.created.get(table);
    return !!set && ids.every((id) => set.has(String(id)));
  }
}

/** A row as the database gave it. */
type StoredRow = Record<string, unknown>;

/** A statement's head when it writes one table it names: INSERT INTO t ..., UPDATE t [alias] SET ... */
const WRITES_ONE = /^\s*(?:INSERT\s+INTO\s+([`"])([^`"]+)\1|UPDATE\s+([`"])([^`"]+)\3\s+(?:(?:AS\s+)?[`"]?\w+[`"]?\s+)?SET\b)/i;
/** Statements of transaction control. */
const CONTROL = /^\s*(?:START|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET\s+TRANSACTION)\b/i;
/** A DELETE from one table it names (DELETE FROM t [alias] WHERE ...). */
const DELETES_ONE = /^\s*DELETE\s+FROM\s+([`"])([^`"]+)\1(?:\s+(?:AS\s+)?[`"]?\w+[`"]?)?\s+WHERE\b/i;
/**
 * Any data-changing keyword. Identifiers are quoted and values are parameters, so a keyword is a
 * keyword; the one statement whose values are written into its text (a MySQL multi-row INSERT:
 * mysql-literals.ts) is told by its head first.
 */
const MAY_WRITE = /\b(insert|update|merge|replace|truncate|alter|drop|rename)\b/i;
/** A read that locks what it reads; not a write. */
const LOCKING_READ = /\bFOR\s+(?:UPDATE|SHARE|NO\s+KEY\s+UPDATE|KEY\s+SHARE)(?:\s+OF\s+[^;]*?)?(?:\s+NOWAIT|\s+SKIP\s+LOCKED)?\s*$/i;

/**
 * The table a statement may write (null: it may write but the table cannot be told, any table
 * then) and whether it only deletes (removing rows never makes one refer to a new object);
 * undefined when it writes nothing.
 */
export function writtenTable(text: string): { table: string | null; deletes: boolean } | undefined {
  const head = WRITES_ONE.exec(text);
  if (head) return { table: head[2] ?? head[4], deletes: false };
  if (CONTROL.test(text)) return undefined;
  const body = text.replace(LOCKING_READ, '');
  if (MAY_WRITE.test(body)) return { table: null, deletes: false };
  // A DELETE (or a writable CTE that deletes): its one table if it names it at its head.
  if (/\bdelete\b/i.test(body)) return { table: DELETES_ONE.exec(text)?.[2] ?? null, deletes: true };
  return undefined;
}
