/** What the dialects bind to columns: the storage kinds, and JSON text made by netkeel. */

/** Column storage kinds the engine needs to cast or compare portably. */
export type ColumnType = 'uuid' | 'string' | 'text' | 'integer' | 'bigint' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'json' | 'bytes' | 'blob';

/**
 * JSON text this program made (JSON.stringify, a compiled encoder), for a JSON column: well-formed
 * by construction, so a multi-row INSERT may carry it inside a larger JSON document as it is (on
 * PostgreSQL a column of these is one jsonb array, not an array literal escaping every quote of
 * every document: a bulk request's change records, ~8 ms of JavaScript and ~6 ms of database
 * time per 1,000). Only insertRows takes it.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
