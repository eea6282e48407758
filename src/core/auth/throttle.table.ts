import { column, defineTable } from '../../database/schema/schema';

/**
 * Attempt counters shared by every instance on the database: one row per bucket (a hash of what
 * it counts, so neither usernames nor addresses are stored), counting within a fixed window.
 */
export const AUTH_THROTTLE_TABLE = defineTable({
  name: 'netkeel_auth_throttle',
  columns: { bucket: column.string(64), attempts: column.integer(), window_start: column.datetime() },
  primaryKey: ['bucket'],
  indexes: [['window_start']],
});
