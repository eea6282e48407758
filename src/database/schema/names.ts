import { createHash } from 'node:crypto';

/** Identifiers at most 63 characters (PostgreSQL's limit; MySQL's is 64), a hash keeping long ones apart. */
export function shortName(name: string): string {
  if (name.length <= 63) return name;
  return `${name.slice(0, 54)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/**
 * MySQL/MariaDB: the table where the triggers of watched tables count their rows' changes, per
 * table and per slot: the writing connection's id, so that no two transactions ever count in one
 * row (no lock waits, no deadlocks between writers); slot 0 holds what `ChangePoller` folded
 * there from the others. The poller reads the sums per table.
 */
export const CHANGE_COUNTS_TABLE = 'netkeel_change_counts';
const MYSQL_EVENTS = ['insert', 'update', 'delete'] as const;
/** MySQL/MariaDB: a watched table's three row triggers (a trigger there has one event), by name. */
export const mysqlChangeTriggers = (table: string) =>
  MYSQL_EVENTS.map((e) => {
    const name = shortName(`${table}_notify_${e}`);
    // Each counts one change of the writing connection's row (ChangePoller).
    const create =
      `CREATE TRIGGER \`${name}\` AFTER ${e.toUpperCase()} ON \`${table}\` FOR EACH ROW INSERT INTO \`${CHANGE_COUNTS_TABLE}\` (\`table_name\`, \`slot\`, \`changes\`) ` +
      `VALUES ('${table.replace(/'/g, "''")}', CONNECTION_ID(), 1) ON DUPLICATE KEY UPDATE \`changes\` = \`changes\` + 1`;
    return { event: e, name, create };
  });

/** PostgreSQL: a watched table's change trigger, which notifies `netkeel_changes` (ChangeFeed). */
export const pgTriggerName = (table: string) => shortName(`${table}_notify_change`);
