import type { Executor } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import { unscoped } from '../../../core/resource/query/rows';
import { objectChangeResource } from '../resources/object-change.resource';

const DAY = 24 * 60 * 60 * 1000;

/**
 * Deletes the change records older than `retentionDays` days before `now` (CHANGELOG_RETENTION;
 * 0 keeps everything), `batchSize` at a time (one SELECT of ids and one DELETE per batch, each in
 * its own transaction when `exec` is not one already, so a large backlog never holds a long lock).
 * Returns how many were deleted. The change-log cleanup job calls this.
 */
export async function cleanupChangeLog(exec: Executor, retentionDays: number, now: Date, batchSize = 1000): Promise<number> {
  if (!(retentionDays > 0)) return 0;
  const cutoff = new Date(now.getTime() - retentionDays * DAY);
  const table = unscoped(objectChangeResource);
  let deleted = 0;
  for (;;) {
    const n = await exec.transaction(async (tx) => {
      // Every record past its time, whoever could read it.
      const ids = await tx.query<{ id: string }>(sql`SELECT ${ident('id')} ${table.from(sql`${ident('time')} < ${tx.dialect.toDb(cutoff, 'datetime')}`)} ORDER BY ${ident('time')} LIMIT ${batchSize}`);
      if (!ids.length) return 0;
      await tx.execute(sql`DELETE ${table.from(inList(ident('id'), ids.map((r) => String(r.id))))}`);
      return ids.length;
    });
    deleted += n;
    if (n < batchSize) return deleted;
  }
}
