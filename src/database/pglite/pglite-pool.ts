import { EventEmitter } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';

type Callback = (err: Error | null, client?: PGliteClient, release?: () => void) => void;

/**
 * A `pg`-compatible pool over one PGlite instance, for TypeORM's postgres driver.
 *
 * PGlite has exactly one session. If every TypeORM connection used it at once, their
 * transactions would interleave and one request's COMMIT could make another request's
 * rolled-back writes permanent. This pool therefore hands the single session to one borrower
 * at a time (a pool of one connection, like a real server with max=1): a transaction holds it
 * from BEGIN to COMMIT/ROLLBACK and everybody else queues. That is real isolation.
 */
export class PGlitePool extends EventEmitter {
  private readonly client: PGliteClient;
  private busy = false;
  private readonly waiters: Array<() => void> = [];
  private ended = false;

  constructor(private readonly db: PGlite) {
    super();
    this.client = new PGliteClient(db);
  }

  connect(callback?: Callback): Promise<PGliteClient> | void {
    const p = this.acquire().then(() => this.client);
    if (!callback) return p;
    p.then(
      (client) => callback(null, client, () => this.release()),
      (err: Error) => callback(err),
    );
  }

  /** Pool-level query (not used by TypeORM's query runners, kept for pg API parity). */
  async query(text: string, params?: unknown[]) {
    await this.acquire();
    try {
      return await this.client.query(text, params);
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.ended) return Promise.reject(new Error('PGlite pool has been closed'));
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.busy = false;
  }

  end(callback?: (err?: Error | null) => void): void {
    this.ended = true;
    callback?.(null);
  }
}

const COMMAND = /^\s*(?:\/\*.*?\*\/\s*)*(\w+)/s;

class PGliteClient extends EventEmitter {
  constructor(private readonly db: PGlite) {
    super();
  }

  async query(text: string, params?: unknown[], callback?: (err: Error | null, res?: unknown) => void) {
    if (typeof params === 'function') {
      callback = params as never;
      params = undefined;
    }
    try {
      const hasParams = Array.isArray(params) && params.length > 0;
      const res = hasParams
        ? await this.db.query<Record<string, unknown>>(text, params as unknown[])
        : ((await this.db.exec(text)).at(-1) ?? { rows: [], fields: [], affectedRows: 0 });
      const rows = (res.rows as Record<string, unknown>[]).map(normalizeRow);
      const command = (COMMAND.exec(text)?.[1] ?? '').toUpperCase();
      const out = {
        command,
        rows,
        fields: res.fields,
        rowCount: command === 'SELECT' || command === 'WITH' ? rows.length : (res.affectedRows ?? rows.length),
      };
      callback?.(null, out);
      return out;
    } catch (err) {
      callback?.(err as Error);
      throw err;
    }
  }

  release(): void {}
}

/** PGlite returns bytea as Uint8Array; the rest of netkeel (and pg) expects Buffer. */
function normalizeRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const k in row) {
    const v = row[k];
    if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  }
  return row;
}
