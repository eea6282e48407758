import { createHash } from 'node:crypto';

/** Identifiers at most 63 characters (PostgreSQL's limit; MySQL's is 64), a hash keeping long ones apart. */
export function shortName(name: string): string {
  if (name.length <= 63) return name;
  return `${name.slice(0, 54)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/**
 * MySQL/MariaDB: the table where the triggers of watched tables count their rows' changes, per
 * table and per slot (the writing connection's id modulo CHANGE_SLOTS, so that concurrent
 * transactions seldom wait for each other's count); `ChangePoller` reads the sums.
 */
export const CHANGE_COUNTS_TABLE = 'netkeel_change_counts';
export const CHANGE_SLOTS = 64;
const MYSQL_EVENTS = ['insert', 'update', 'delete'] as const;
/** MySQL/MariaDB: a watched table's three row triggers (a trigger there has one event), by name. */
export const mysqlChangeTriggers = (table: string) => MYSQL_EVENTS.map((e) => ({ event: e, name: shortName(`${table}_notify_${e}`) }));
