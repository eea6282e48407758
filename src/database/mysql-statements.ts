import type { QueryRunner } from 'typeorm';
import { QueryFailedError } from 'typeorm';

/** What mysql2's (callback) connection offers that this module uses. */
interface MysqlConnection {
  query(options: { sql: string; values: unknown[] }, cb: Callback): void;
  execute(options: { sql: string; values: unknown[] }, cb: Callback): void;
}
type Callback = (err: Error | null, result: unknown, fields?: MysqlField[]) => void;
/** A result column as mysql2 describes it. */
interface MysqlField {
  name: string;
  columnType: number;
  columnLength: number;
}

/** mysql2's type code of TINYINT (Types.TINY). */
const TINY = 1;

/**
 * netkeel's statements on MySQL and MariaDB, straight on mysql2's connection (the one a TypeORM
 * query runner holds) rather than through the runner's `query`, so that the columns' descriptions
 * come back with the rows:
 *
 * - A read or write outside a transaction with at most `maxPreparedParams` values runs as a
 *   server-side prepared statement (mysql2's `execute`: the binary protocol, each text prepared
 *   once per connection and kept in mysql2's per-connection cache, `maxPreparedStatements`): the
 *   server parses and plans it once, where a text statement is parsed and planned every time (a
 *   detail's statement: 0.28 ms executed against 0.40 ms as text on MariaDB). A statement with
 *   more values (a bulk write's rows, a long id list) is a text statement: a prepared one takes at
 *   most 65,535 values, and each such text would be prepared for one use.
 * - Inside a transaction, statements are text statements as on PostgreSQL (planned for their
 *   values each time: a bulk write checks its rows against tables it is growing).
 *
 * A BOOLEAN column is a TINYINT(1) that mysql2 reads as a number: it is made true or false here,
 * from the column's description, for both kinds of statement (a `typeCast` function would be
 * called for every value of every row, and, for a prepared statement, with an object made per
 * value).
 */
export class MysqlStatements {
  constructor(
    /** Whether statements outside transactions run prepared (PREPARED_STATEMENTS). */
    private readonly prepare = true,
    private readonly maxPreparedParams = 1000,
  ) {}

  async run(qr: QueryRunner, text: string, values: unknown[], prepare: boolean): Promise<{ records: Record<string, unknown>[]; affected?: number }> {
    const conn = (await qr.connect()) as MysqlConnection;
    try {
      if (prepare && this.prepare && values.length <= this.maxPreparedParams) {
        try {
          // A text statement writes undefined as NULL; a prepared one refuses it.
          return await statement(conn, 'execute', text, values.map((v) => (v === undefined ? null : v)));
        } catch (err) {
          // Not prepared, so not run: as text then (the server's max_prepared_stmt_count reached
          // by all its sessions together, or a statement the server cannot prepare).
          if (!NOT_PREPARED.has((err as { errno?: number }).errno!)) throw err;
        }
      }
      return await statement(conn, 'query', text, values);
    } catch (err) {
      // As TypeORM's query runner reports it, so error handling reads the driver's code alike.
      throw new QueryFailedError(text, values, err as Error);
    }
  }
}

/** Errors of a statement the server did not prepare: ER_MAX_PREPARED_STMT_COUNT_REACHED, ER_UNSUPPORTED_PS. */
const NOT_PREPARED = new Set([1461, 1295]);

function statement(conn: MysqlConnection, how: 'execute' | 'query', text: string, values: unknown[]): Promise<{ records: Record<string, unknown>[]; affected?: number }> {
  return new Promise((resolve, reject) =>
    conn[how]({ sql: text, values }, (err, result, fields) => {
      if (err) reject(err);
      else if (Array.isArray(result)) resolve({ records: fields ? withBooleans(result as Record<string, unknown>[], fields) : (result as Record<string, unknown>[]) });
      else resolve({ records: [], affected: (result as { affectedRows?: number } | undefined)?.affectedRows });
    }),
  );
}

/** Rows with their BOOLEAN (TINYINT(1)) columns' numbers made true or false, in place. */
function withBooleans(rows: Record<string, unknown>[], fields: MysqlField[]): Record<string, unknown>[] {
  let names: string[] | undefined;
  for (const f of fields) if (f.columnType === TINY && f.columnLength === 1) (names ??= []).push(f.name);
  if (!names) return rows;
  for (const r of rows) {
    for (const n of names) {
      const v = r[n];
      if (v !== null && v !== undefined) r[n] = v === 1 || v === '1';
    }
  }
  return rows;
}
