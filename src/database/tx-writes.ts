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
  private readonly tables = new Set<string>();
  /** A statement that may write, whose table could not be told: every table counts as written. */
  private anyTable = false;
  private readonly created = new Map<string, Set<string>>();

  /** Notes a statement the transaction runs (its rendered text). */
  statement(text: string): void {
    if (this.anyTable) return;
    const table = writtenTable(text);
    if (table === undefined) return;
    if (table === null) this.anyTable = true;
    else this.tables.add(table);
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
    if (this.anyTable || !ids.length || related.some((t) => this.tables.has(t))) return false;
    const set = this.created.get(table);
    return !!set && ids.every((id) => set.has(String(id)));
  }
}

/** A statement's head when it writes one table it names: INSERT INTO t ..., UPDATE t [alias] SET ... */
const WRITES_ONE = /^\s*(?:INSERT\s+INTO\s+([`"])([^`"]+)\1|UPDATE\s+([`"])([^`"]+)\3\s+(?:(?:AS\s+)?[`"]?\w+[`"]?\s+)?SET\b)/i;
/** Any data-changing keyword (identifiers are quoted and values are parameters: a keyword is a keyword). */
const MAY_WRITE = /\b(insert|update|merge|replace|truncate|alter|drop|rename)\b/i;
/** A read that locks what it reads; not a write. */
const LOCKING_READ = /\bFOR\s+(?:UPDATE|SHARE|NO\s+KEY\s+UPDATE|KEY\s+SHARE)(?:\s+OF\s+[^;]*?)?(?:\s+NOWAIT|\s+SKIP\s+LOCKED)?\s*$/i;

/**
 * The table a statement may put rows into or change rows of: its name; undefined when it writes
 * none (a read, a DELETE: removing rows never makes one refer to a new object); null when it
 * may write but the table cannot be told (any table, then).
 */
export function writtenTable(text: string): string | null | undefined {
  const head = WRITES_ONE.exec(text);
  if (head) return head[2] ?? head[4];
  if (/^\s*DELETE\b/i.test(text) && !/\b(insert|update)\b/i.test(text)) return undefined;
  if (/^\s*(?:START|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET\s+TRANSACTION)\b/i.test(text)) return undefined;
  return MAY_WRITE.test(text.replace(LOCKING_READ, '')) ? null : undefined;
}
