import type { Executor } from '../../database/db';
import { column, defineTable } from '../../database/schema/schema';
import { ident, inList, join, sql } from '../../database/sql';

/** The names of the defaults a start-up has made (statuses, the Global namespace, ...). */
export const SEED_TABLE = defineTable({ name: 'netkeel_seed', columns: { name: column.string(255) }, primaryKey: ['name'] });

/**
 * Remembers which default rows a start-up has already created, so that defaults are made
 * once and an operator's later edits or deletions are never undone by a restart.
 */
export async function unseeded(exec: Executor, names: string[]): Promise<Set<string>> {
  if (!names.length) return new Set();
  const rows = await exec.query<{ name: string }>(sql`SELECT ${ident('name')} FROM ${ident('netkeel_seed')} WHERE ${inList(ident('name'), names)}`);
  const done = new Set(rows.map((r) => r.name));
  return new Set(names.filter((n) => !done.has(n)));
}

export async function markSeeded(exec: Executor, names: string[]): Promise<void> {
  if (!names.length) return;
  await exec.execute(sql`INSERT INTO ${ident('netkeel_seed')} (${ident('name')}) VALUES ${join(names.map((n) => sql`(${n})`))}`);
}
