import { newId } from '../../../core/ids';
import type { Executor } from '../../../database/db';
import type { ResourceDefinition } from '../../../core/resource/definition';
import { unscoped } from '../../../core/resource/query/rows';
import { columnTypes, modelColumns } from '../../../core/resource/storage';
import { ident, join, param, sql } from '../../../database/sql';

const BLANK: Record<string, unknown> = { string: '', text: '', integer: 0, bigint: 0, decimal: 0, boolean: false };

/**
 * Inserts rows the engine's writer would refuse (read-only models the jobs machinery keeps:
 * results, logs, schedules), in one statement: every stored column, unset ones as the field's
 * default, NULL where nullable, else blank. Returns the ids.
 */
export async function insertRows(exec: Executor, def: ResourceDefinition, rows: Record<string, unknown>[], now: Date): Promise<string[]> {
  if (!rows.length) return [];
  const columns = modelColumns(def);
  const types = columnTypes(def);
  const defaults: Record<string, unknown> = {};
  for (const f of Object.values(def.fields)) {
    if (f.kind === 'scalar' && f.default !== undefined) defaults[f.column] = f.default;
  }
  const d = exec.dialect;
  const ids: string[] = [];
  const values = rows.map((r) => {
    const row: Record<string, unknown> = { created: now, last_updated: now, ...r };
    row.id ??= newId();
    ids.push(String(row.id));
    return sql`(${join(
      columns.map((c) => {
        let v = row[c.name];
        if (v === undefined) {
          const dflt = defaults[c.name];
          v = typeof dflt === 'function' ? (dflt as () => unknown)() : dflt;
        }
        if (v === undefined) v = c.nullable ? null : c.type === 'json' ? {} : BLANK[c.type] ?? null;
        return param(d.toDb(v, types[c.name]));
      }),
    )})`;
  });
  await exec.execute(sql`INSERT INTO ${unscoped(def).table} (${join(columns.map((c) => ident(c.name)))}) VALUES ${join(values)}`);
  return ids;
}
