import type { QueryRunner } from 'typeorm';
import { QueryFailedError } from 'typeorm';

/** Names are unique in the process, whatever instance gives them. */
let serial = 0;

/** What node-postgres's client offers that this module uses. */
interface PgClient {
  query(config: ShapedQuery): void;
  query(text: string): Promise<unknown>;
  connection?: { parsedStatements?: Record<string, string>; submittedNamedStatements?: Record<string, string> };
}

/** A prepared statement's result columns as node-postgres's result keeps them once described. */
interface Shape {
  fields: unknown[];
  parsers: unknown[];
  empty: object;
}

/** The parts of node-postgres's Query (pg/lib/query.js) and Result that ShapedQuery uses. */
interface PgQuery {
  name: string;
  text: string;
  types: unknown;
  portal: string;
  values: unknown[];
  binary: boolean;
  rows: number | undefined;
  callback?: (err: Error | null, res: { rows: Record<string, unknown>[]; rowCount: number | null }) => void;
  _result: { fields?: unknown[]; _parsers?: unknown[]; _prebuiltEmptyResultObject?: object };
  _accumulateRows: boolean;
  hasBeenParsed(connection: unknown): boolean;
  prepare(connection: unknown): void;
  handleRowDescription(msg: { fields: unknown[] }): void;
  handleError(err: unknown, connection: unknown): void;
  _getRows(connection: unknown, rows: number | undefined): void;
}
interface PgConnection {
  submittedNamedStatements: Record<string, string>;
  parse(o: object): void;
  bind(o: object): void;
  describe(o: object): void;
  sync(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Query } = require('pg') as { Query: new (text: string, values: unknown[]) => PgQuery };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (v: unknown) => unknown };

/**
 * A named statement's execution that, once the statement's result columns are known on its
 * connection, asks the server for its rows without describing them again: node-postgres sends a
 * Describe with every execution, the server answers a RowDescription (a detail's ~60 columns:
 * ~3 KB), and the client parses it and looks up a type parser for each column (~5 % of a
 * detail's CPU). A prepared statement's columns cannot change while the connection holds it
 * (PostgreSQL refuses to run it instead: "cached plan must not change result type"), so the
 * description learnt from its first execution on a connection holds for every later one there.
 * Otherwise as `Query.prepare` does: parse (unless the connection holds the statement), bind,
 * describe, execute and sync.
 */
class ShapedQuery extends Query {
  constructor(
    name: string,
    text: string,
    values: unknown[],
    private readonly known: Shape | undefined,
    private readonly learn: (s: Shape) => void,
  ) {
    // Given as text and values, not a config object: node-postgres copies a config object
    // through its property descriptors (cloneQueryConfig), ~4 % of a detail's CPU.
    super(text, values);
    this.name = name;
  }

  override handleRowDescription(msg: { fields: unknown[] }): void {
    super.handleRowDescription(msg);
    const r = this._result;
    if (r.fields && r._parsers && r._prebuiltEmptyResultObject) this.learn({ fields: r.fields, parsers: r._parsers, empty: r._prebuiltEmptyResultObject });
  }

  override prepare(connection: PgConnection): void {
    const parsed = this.hasBeenParsed(connection);
    if (!parsed) {
      connection.parse({ text: this.text, name: this.name, types: this.types });
      connection.submittedNamedStatements[this.name] = this.text;
    }
    try {
      connection.bind({ portal: this.portal, statement: this.name, values: this.values, binary: this.binary, valueMapper: prepareValue });
    } catch (err) {
      // Query.prepare closes the statement here, and the connection goes on believing it holds
      // it: every later execution failed with "prepared statement does not exist". Kept, it
      // stays what the connection and PreparedStatements's count of it say it is.
      connection.sync();
      this.handleError(err, connection);
      return;
    }
    if (parsed && this.known) {
      const r = this._result;
      r.fields = this.known.fields;
      r._parsers = this.known.parsers;
      r._prebuiltEmptyResultObject = this.known.empty;
      this._accumulateRows = true;
    } else {
      connection.describe({ type: 'P', name: this.portal || '' });
    }
    this._getRows(connection, this.rows);
  }
}

/**
 * Named (prepared) statements on a PostgreSQL server: each statement text is parsed and planned
 * once per connection, then only bound and executed. Parsing and planning a list page's
 * statement costs the server more than executing it (a 50-object page: ~1 ms of planning
 * against ~0.2 ms of execution), and so does the token lookup on every request.
 *
 * PostgreSQL decides per statement between a plan made for the bound values and a generic plan
 * kept for the connection (plan_cache_mode). Each connection keeps at most `perConnection`
 * statements, the least recently used closed first, so that the many texts a filter API can
 * produce do not accumulate on the server. The texts' names come from one table shared by all
 * connections, so a name is never given to two texts.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();
  /** Per connection, the names it holds (least recently used first), each with its result's columns once known. */
  private readonly used = new WeakMap<PgClient, Map<string, Shape | null>>();

  constructor(
    private readonly perConnection = 100,
    private readonly maxNames = 2000,
  ) {}

  async run(qr: QueryRunner, text: string, values: unknown[]): Promise<{ records: Record<string, unknown>[]; affected?: number }> {
    const client = (await qr.connect()) as PgClient;
    if (!tracksNames(client)) {
      const res = await qr.query(text, values, true);
      return { records: res.records ?? [], affected: res.affected ?? undefined };
    }
    const name = this.nameOf(text);
    const held = await this.admit(client, name);
    try {
      const res = await new Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>((resolve, reject) => {
        const query = new ShapedQuery(name, text, values, held.get(name) ?? undefined, (shape) => held.has(name) && held.set(name, shape));
        query.callback = (err, r) => (err ? reject(err) : resolve(r));
        client.query(query);
      });
      return { records: res.rows ?? [], affected: res.rowCount ?? undefined };
    } catch (err) {
      // Described again next time (whatever failed, nothing is assumed of the statement).
      if (held.get(name)) held.set(name, null);
      // As TypeORM's query runner reports it, so error handling reads the driver's code alike.
      throw new QueryFailedError(text, values, err as Error);
    }
  }

  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      // Forgetting a text only costs a new name if it comes back; connections age the old one out.
      if (this.names.size >= this.maxNames) this.names.delete(this.names.keys().next().value!);
      name = `nk_${(serial++).toString(36)}`;
      this.names.set(text, name);
    }
    return name;
  }

  /** Marks `name` as most recently used on `client`, closing the least recently used beyond the limit; the connection's names. */
  private async admit(client: PgClient, name: string): Promise<Map<string, Shape | null>> {
    let lru = this.used.get(client);
    if (!lru) this.used.set(client, (lru = new Map()));
    const shape = lru.get(name);
    if (shape !== undefined) {
      lru.delete(name);
      lru.set(name, shape);
      return lru;
    }
    lru.set(name, null);
    if (lru.size <= this.perConnection) return lru;
    const oldest = lru.keys().next().value!;
    lru.delete(oldest);
    const conn = client.connection!;
    if (conn.parsedStatements![oldest] === undefined) return lru; // never parsed (its statement failed)
    const text = conn.parsedStatements![oldest];
    delete conn.parsedStatements![oldest];
    // DEALLOCATE of a statement the session holds fails only in a transaction that has already
    // failed (where the statement about to run fails too). The session then still holds it, and
    // the client must know, or it would parse the name again: it stays, untracked.
    await client.query(`DEALLOCATE "${oldest}"`).catch(() => {
      conn.parsedStatements![oldest] = text;
    });
    return lru;
  }
}

/** Whether this is node-postgres's client, whose per-connection record of parsed names this relies on. */
function tracksNames(c: PgClient): boolean {
  return typeof c?.connection?.parsedStatements === 'object' && typeof c.connection.submittedNamedStatements === 'object';
}
