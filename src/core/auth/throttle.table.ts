import { createHash } from 'node:crypto';
import { column, defineTable } from '../../database/schema/schema';
import type { Dialect } from '../../database/dialect';
import { ident, inList, join, sql, Sql } from '../../database/sql';

/**
 * Counters shared by every instance on the database: password attempts, unknown token keys
 * (`LoginThrottle`) and the requests rate limits hand out (`RateLimiter`). One row per bucket (a
 * hash of what it counts, so neither usernames nor addresses are stored), counting within a
 * window that started at `window_start`.
 */
export const AUTH_THROTTLE_TABLE = defineTable({
  name: 'netkeel_auth_throttle',
  columns: { bucket: column.string(64), attempts: column.integer(), window_start: column.datetime() },
  primaryKey: ['bucket'],
  indexes: [['window_start']],
});

/** The bucket of what a counter counts: a hash of its parts (a kind first, then what it is about). */
export const counterBucket = (...parts: string[]) => createHash('sha256').update(parts.join('\0'), 'utf8').digest('hex');

/** No counter's window is longer than a day (RATE_LIMIT's longest period): a row whose window started earlier is of no use. */
const STALE_AFTER_MS = 86_400_000;

/** The rows no counter reads any more. */
export const staleCounters = (now: Date): Sql => sql`${ident('window_start')} < ${new Date(now.getTime() - STALE_AFTER_MS)}`;

const t = ident(AUTH_THROTTLE_TABLE.name);
const stored = (c: string) => sql`${t}.${ident(c)}`;

/** The statements that keep counters (sorted ids: every statement that locks them takes them in one order). */
export const counterStatements = {
  /** Makes the rows exist (a count of 0 in a window starting at `start`), leaving those that do. */
  ensure: (d: Dialect, ids: string[], start: Date): Sql =>
    sql`INSERT INTO ${t} (${ident('bucket')}, ${ident('attempts')}, ${ident('window_start')}) VALUES ${join(ids.map((id) => sql`(${id}, ${0}, ${start})`))}${d.onConflictIgnore(['bucket'])}`,
  /** Adds `n` to each row; a row whose window started before `restartBefore` starts again at `start`, with `n`. Affects each row that exists. */
  add(d: Dialect, ids: string[], n: number, window: { restartBefore: Date; start: Date }): Sql {
    const expired = sql`${stored('window_start')} < ${d.typedParam(window.restartBefore, 'datetime')}`;
    // `attempts` first: on MySQL the second assignment sees the first.
    return sql`UPDATE ${t} SET ${ident('attempts')} = CASE WHEN ${expired} THEN ${n} ELSE ${stored('attempts')} + ${n} END,
      ${ident('window_start')} = CASE WHEN ${expired} THEN ${d.typedParam(window.start, 'datetime')} ELSE ${stored('window_start')} END
      WHERE ${inList(ident('bucket'), ids)}`;
  },
  read: (ids: string[]): Sql => sql`SELECT ${ident('bucket')}, ${ident('attempts')}, ${ident('window_start')} FROM ${t} WHERE ${inList(ident('bucket'), ids)}`,
};

export type CounterRow = { bucket: string; attempts: number; window_start: Date | string };
