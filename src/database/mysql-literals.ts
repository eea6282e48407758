import { JsonText } from './column-values';

/**
 * Values written into a MySQL or MariaDB statement's text as literals: the rows of a multi-row
 * INSERT (mysqlDialect.insertRows). mysql2 sends every statement as text anyway, writing each
 * value where its `?` stands; for 1,000 rows of 20 columns that was a scan of the statement for
 * 20,000 placeholders, a string per value, a date formatted per value, and JSON written as hex
 * (twice its bytes) or with every quote escaped. Here each value is written once, as mysql2
 * writes it with the connection's options (timezone 'Z': times in UTC), and a JSON document
 * (JsonText, made by netkeel) as a string literal.
 *
 * Strings are quoted as mysql2 quotes them, but for the quote: between single quotes, a quote
 * doubled, a backslash before each backslash, and NUL, newline, carriage return and Ctrl-Z written
 * as escapes. This holds for the connections netkeel opens (utf8mb4; backslash escapes on: each
 * session drops NO_BACKSLASH_ESCAPES from its sql_mode, MYSQL_SESSION, as mysql2's own escaping
 * assumes too).
 */
export function mysqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  switch (typeof v) {
    case 'string':
      return quoted(v);
    case 'number':
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof JsonText) return quoted(v.text);
  if (v instanceof Date) return dateLiteral(v);
  if (Buffer.isBuffer(v)) return `X'${v.toString('hex')}'`;
  throw new Error(`no SQL literal for a value of type ${Object.prototype.toString.call(v)}`);
}

/** The characters a quoted string cannot hold as they are. */
const SPECIAL = /[\0\n\r\x1a'\\]/;
const SPECIAL_ALL = /[\0\n\r\x1a'\\]/g;
// A quote doubled, which no sql_mode reads otherwise (mysql2 writes \'): a value can never end
// its literal early, whatever the session's mode.
const ESCAPES: Record<string, string> = { '\0': '\\0', '\n': '\\n', '\r': '\\r', '\x1a': '\\Z', "'": "''", '\\': '\\\\' };

function quoted(s: string): string {
  return SPECIAL.test(s) ? `'${s.replace(SPECIAL_ALL, (c) => ESCAPES[c])}'` : `'${s}'`;
}

/** The last time written, and its literal: a batch's rows share their `created`, `last_updated` and change time. */
let lastDate: Date | undefined;
let lastTime = NaN;
let lastLiteral = '';

/** A time as mysql2 writes it with timezone 'Z' (`'2026-12-05 00:14:40.926'`, UTC); an invalid one as NULL. */
function dateLiteral(d: Date): string {
  const t = d.getTime();
  if (d === lastDate && t === lastTime) return lastLiteral;
  if (Number.isNaN(t)) return 'NULL';
  const iso = d.toISOString(); // 2026-12-05T00:14:40.926Z (a year beyond 9999 has a sign and six digits)
  const at = iso.indexOf('T');
  lastDate = d;
  lastTime = t;
  lastLiteral = `'${iso.slice(0, at)} ${iso.slice(at + 1, -1)}'`;
  return lastLiteral;
}
