import { ident, inList, sql } from '../../../database/sql';
import type { ExtensionContext } from '../../../core/resource/extension';
import { ownRepresentations } from '../../../core/resource/serialize/own-representation';
import type { ChangeEvent } from './listeners';

type Obj = Record<string, unknown>;

/** An object's data before and after one change, and what differs (the reference's get_snapshots). */
export interface Snapshots {
  prechange: Obj | null;
  postchange: Obj | null;
  differences: { removed: Obj | null; added: Obj | null };
}

/** A moment as the reference's change notifications write it (Python's str() of an aware datetime, microseconds always): `2026-11-27 08:40:00.123000+00:00`. */
export function pythonTimestamp(d: Date): string {
  const iso = d.toISOString(); // 2026-11-27T08:40:00.123Z
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000+00:00`;
}

const json = (v: unknown): Obj | null => (typeof v === 'string' ? (JSON.parse(v) as Obj) : ((v as Obj | null) ?? null));

/** Equal as JSON values: objects key by key whatever their keys' order (a record read back from jsonb has its keys reordered). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => same(v, (b as unknown[])[i]));
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && same((a as Obj)[k], (b as Obj)[k]));
}

/** The reference's shallow diff: keys of `after` whose values differ from `before`'s (last_updated ignored). */
function shallowDiff(before: Obj, after: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(after)) if (k !== 'last_updated' && !same(before[k], v)) out[k] = v;
  return out;
}

/**
 * The snapshots of a batch of changes, by change record id (the reference's
 * ObjectChange.get_snapshots, which webhooks and change events carry): before is the previous
 * change record's data; without one (the change log kept to CHANGELOG_RETENTION), a delete's own
 * data or, for an update, the stored row the writer held before it, represented as the record
 * would (its many-to-many links read as they are now); after is the record's own (none on
 * delete); `differences` is a shallow diff. One statement for the batch (the latest earlier
 * record of each object), and the representer's for updates without one.
 */
export async function snapshots(x: ExtensionContext, event: Pick<ChangeEvent, 'records' | 'objects'>): Promise<Map<string, Snapshots>> {
  const { records } = event;
  const out = new Map<string, Snapshots>();
  const needPrior = records.filter((r) => r.action !== 'create');
  const prior = new Map<string, Obj | null>();
  if (needPrior.length) {
    const t = ident('extras_objectchange');
    const rows = await x.exec.query<{ changed_object_id: string; object_data: unknown; object_data_v2: unknown }>(
      sql`SELECT o.${ident('changed_object_id')}, o.${ident('object_data')}, o.${ident('object_data_v2')} FROM ${t} o
          WHERE o.${ident('changed_object_type')} = ${needPrior[0].changed_object_type}
            AND ${inList(sql`o.${ident('changed_object_id')}`, needPrior.map((r) => r.changed_object_id))}
            AND NOT ${inList(sql`o.${ident('id')}`, records.map((r) => r.id))}
            AND o.${ident('time')} = (SELECT MAX(p.${ident('time')}) FROM ${t} p WHERE p.${ident('changed_object_type')} = o.${ident('changed_object_type')}
              AND p.${ident('changed_object_id')} = o.${ident('changed_object_id')} AND NOT ${inList(sql`p.${ident('id')}`, records.map((r) => r.id))})`,
    );
    for (const r of rows) prior.set(String(r.changed_object_id), json(r.object_data_v2) ?? json(r.object_data));
    // Updates of objects whose earlier records are gone: the row as it was, represented.
    const held = new Map(event.objects.filter((o) => o.before).map((o) => [o.id, o.before!]));
    const missing = needPrior.filter((r) => r.action === 'update' && !prior.has(r.changed_object_id) && held.has(r.changed_object_id));
    if (missing.length) {
      const rows = missing.map((r) => held.get(r.changed_object_id)!);
      const reps = await ownRepresentations(x.ctx, x.exec, x.def, rows);
      missing.forEach((r, i) => prior.set(r.changed_object_id, reps[i]));
    }
  }
  for (const r of records) {
    const own = r.object_data_v2 ?? r.object_data;
    let pre: Obj | null = null;
    if (r.action !== 'create') pre = prior.get(r.changed_object_id) ?? (r.action === 'delete' ? own : null);
    const post = r.action === 'delete' ? null : own;
    let differences: Snapshots['differences'];
    if (pre && post) {
      const added = shallowDiff(pre, post);
      differences = { removed: Object.fromEntries(Object.keys(added).map((k) => [k, pre![k] ?? null])), added };
    } else if (pre) differences = { removed: pre, added: null };
    else differences = { added: post, removed: null };
    out.set(r.id, { prechange: pre, postchange: post, differences });
  }
  return out;
}
