/**
 * Arrays bound to PostgreSQL (and PGlite): a multi-row INSERT's values as one array literal per
 * column, taken apart by unnest (Dialect.insertRows), and a list of values bound as one array
 * parameter (`= ANY($1)`).
 */
import { JsonText, type ColumnType } from './column-values';
import { ident, join, raw, sql, Sql } from './sql';

/** A value's text inside a PostgreSQL array literal, before quoting (as node-postgres would bind it alone). */
function pgElementText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof JsonText) return v.text;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'invalid date' : v.toISOString();
  if (Buffer.isBuffer(v)) return '\\x' + v.toString('hex');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** An array element that reads as itself unquoted: no space, quote, brace, comma or backslash. */
const UNQUOTED_ELEMENT = /^[0-9A-Za-z_.:+-]+$/;
const NULL_ELEMENT = /^null$/i;

/**
 * A list bound as one array parameter (`= ANY($1)`): a list of ids (or other texts that need no
 * quoting) as its array literal, written here in one join; anything else as it is, for
 * node-postgres to write (which quotes and escapes every element: a few strings each).
 */
export function pgArrayParam(values: readonly unknown[]): unknown {
  for (const v of values) if (typeof v !== 'string' || !UNQUOTED_ELEMENT.test(v) || (v.length === 4 && NULL_ELEMENT.test(v))) return values;
  return bracketed((values as string[]).slice(), '{', '}');
}

/**
 * `open + items.join(',') + close` as one flat string. Concatenated after the join, the brackets
 * would make a tree of three pieces that node-postgres's writer then copies whole to measure and
 * encode it (a bulk write's change records: ~2 MB of JSON text a request); joined with the items,
 * the text is made once. `items` is written to: its first and last take the brackets.
 */
function bracketed(items: string[], open: string, close: string): string {
  if (!items.length) return open + close;
  items[0] = open + items[0];
  items[items.length - 1] += close;
  return items.join(',');
}

/** Characters JSON.stringify escapes besides `"` and `\`. */
const ESCAPED_OTHERWISE_BY_JSON = /[\u0000-\u001f\ud800-\udfff]/;

/** Column `i` of `rows` as a PostgreSQL array literal of quoted elements (NULL for null). */
function pgArrayLiteral(rows: readonly (readonly unknown[])[], i: number): string {
  const parts = new Array<string>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const v = rows[r][i];
    if (v === null || v === undefined) {
      parts[r] = 'NULL';
      continue;
    }
    const text = pgElementText(v);
    // An element is quoted with `"` and `\` escaped by a backslash, which is what JSON.stringify
    // makes of a text without control characters or surrogates (it escapes those as `\n`,
    // `\u...`, which an array literal would read as `n`, `u...`), and 3-4x faster than a
    // replace on the long JSON texts of change records.
    parts[r] = ESCAPED_OTHERWISE_BY_JSON.test(text) ? '"' + text.replaceAll('\\', '\\\\').replaceAll('"', '\\"') + '"' : JSON.stringify(text);
  }
  return bracketed(parts, '{', '}');
}

/**
 * Column `i` of `rows` as an array for unnest: an array literal cast to the column's type, or for
 * a JSON column of JsonText (and nulls) a jsonb document of them, `[[doc], [], ...]` (an empty
 * list reads as SQL NULL, a document as itself, even JSON's null), taken apart in order.
 */
function pgColumnArray(rows: readonly (readonly unknown[])[], i: number, type: ColumnType): Sql {
  if (type === 'json' && rows.every((r) => r[i] === null || r[i] === undefined || r[i] instanceof JsonText)) {
    const parts = new Array<string>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const v = rows[r][i];
      parts[r] = v instanceof JsonText ? `[${v.text}]` : '[]';
    }
    return sql`ARRAY(SELECT e.value -> 0 FROM jsonb_array_elements(CAST(${bracketed(parts, '[', ']')} AS jsonb)) WITH ORDINALITY e ORDER BY e.ordinality)`;
  }
  return sql`CAST(${pgArrayLiteral(rows, i)} AS ${raw(pgType(type))}[])`;
}

/** What `sameValue` answers for a column whose rows differ. */
const VARYING = Symbol('varying');

/**
 * The one value column `i` holds in every row, or VARYING: primitives equal, times of the same
 * instant, JSON of the same text; any other object only when it is the same object.
 */
function sameValue(rows: readonly (readonly unknown[])[], i: number): unknown {
  const first = rows[0][i] ?? null;
  for (let r = 1; r < rows.length; r++) {
    const v = rows[r][i] ?? null;
    if (v === first) continue;
    if (v instanceof Date && first instanceof Date && v.getTime() === first.getTime()) continue;
    if (v instanceof JsonText && first instanceof JsonText && v.text === first.text) continue;
    return VARYING;
  }
  return first;
}

/**
 * PostgreSQL's multi-row INSERT: `(<columns>) SELECT ... FROM unnest(<one array per column>)`,
 * one parameter per column however many rows (binding a thousand rows of separate parameters
 * costs the server tens of milliseconds). A column that holds one value in every row (a bulk
 * request's times, type, status, parent; a change record's user, request and action; a column
 * of nulls) is that value once, not an array of it: neither netkeel nor the server then makes
 * or reads a thousand copies. One row, or rows that differ in no column, select no arrays.
 */
export function pgInsertRows(columns: readonly string[], types: readonly ColumnType[], rows: readonly (readonly unknown[])[]): Sql {
  const names = join(columns.map((c) => ident(c)));
  if (!rows.length) return sql`(${names}) SELECT * FROM unnest(${join(columns.map((_, i) => pgColumnArray(rows, i, types[i])))})`;
  const selected: Sql[] = [];
  const arrays: Sql[] = [];
  const aliases: Sql[] = [];
  columns.forEach((_, i) => {
    const type = raw(pgType(types[i]));
    const v = sameValue(rows, i);
    if (v === VARYING) {
      const alias = `c${i}`;
      arrays.push(pgColumnArray(rows, i, types[i]));
      aliases.push(ident(alias));
      selected.push(ident('u', alias));
    } else selected.push(v === null ? sql`CAST(NULL AS ${type})` : sql`CAST(${pgElementText(v)} AS ${type})`);
  });
  const from = arrays.length ? sql` FROM unnest(${join(arrays)}) AS u(${join(aliases)})` : rows.length > 1 ? sql` FROM generate_series(1, ${rows.length})` : sql``;
  return sql`(${names}) SELECT ${join(selected)}${from}`;
}

export const PG_TYPES: Record<ColumnType, string> = {
  uuid: 'uuid', string: 'varchar', text: 'text', integer: 'integer', bigint: 'bigint', decimal: 'numeric',
  boolean: 'boolean', date: 'date', datetime: 'timestamptz', json: 'jsonb', bytes: 'bytea', blob: 'bytea',
};

function pgType(t: ColumnType): string {
  const name = PG_TYPES[t];
  if (!name) throw new Error(`no PostgreSQL type for a column of type ${String(t)}`);
  return name;
}
