import { newId } from '../../../core/ids';
import type { Executor, Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import { JsonText, type ColumnType, type Dialect } from '../../../database/dialect';
import type { RequestContext } from '../../../core/context';
import { objectType, ResourceDefinition } from '../../../core/resource/definition';
import type { ChangeBatch, ChangedObject, ExtensionContext, ModelExtension } from '../../../core/resource/extension';
import { fitDepth } from '../../../core/resource/json-limits';
import { storedRows, unscoped } from '../../../core/resource/query/rows';
import { ownRepresentations } from '../../../core/resource/serialize/own-representation';
import { storedBoolean } from '../../../core/resource/serialize/values';
import { columnTypes, modelColumns, storedColumns } from '../../../core/resource/storage';
import { chunks, ID_CHUNK, rowsPerStatement } from '../../../core/resource/write/item';
import { encoderOf } from '../../../core/resource/serialize/json-encoder';
import type { Field } from '../../../core/resource/fields';
import { isChangeLogged, MAX_CHANGE_CONTEXT_DETAIL, MAX_OBJECT_REPR, objectChangeResource } from '../resources/object-change.resource';
import { notifyListeners, type ChangeRecord } from './listeners';

type Obj = Record<string, unknown>;

/**
 * The change log on every model (the reference's ChangeLoggedModel and its signal handlers):
 * each batch a write makes becomes one change record per object, in the write's transaction
 * (a failed write leaves none), with one INSERT per batch. The object's data is read as it is
 * after a create or update and as it was before a delete: the stored fields (`object_data`,
 * the reference's serialize_object) and the REST representation at depth 0 (`object_data_v2`),
 * without count fields, as the reference's serializer leaves out counts its object was not
 * annotated with.
 */
export const changeLogExtension: ModelExtension = {
  observe: {
    async changed(x: ExtensionContext, batch: ChangeBatch): Promise<void> {
      if (!isChangeLogged(x.def)) return;
      for (const part of chunks(batch.objects, ID_CHUNK)) {
        const { records, texts } = await changeRecords(x.ctx, x.exec, x.def, batch.action, part);
        if (!records.length) continue;
        await insertRecords(x.exec, records, texts);
        await notifyListeners(x, { action: batch.action, objectType: objectType(x.def), objects: part, records });
      }
    },
  },
};

/** A record's two JSON documents as the text stored, `[object_data, object_data_v2]`. */
type RecordTexts = [string, string | null];

/**
 * The records of one chunk of objects: their rows (one statement), representations and tag
 * names; and each record's documents as JSON text, `object_data_v2` written by the
 * representations' own encoder (the same text as JSON.stringify's, in about half the time).
 */
async function changeRecords(ctx: RequestContext, exec: Executor, def: ResourceDefinition, action: ChangeBatch['action'], objects: ChangedObject[]): Promise<{ records: ChangeRecord[]; texts: RecordTexts[] }> {
  const ids = objects.map((o) => o.id);
  // Rows this write has just saved, or is about to delete: read whatever the requester may view.
  const rows = await storedRows(exec, def, ids);
  if (!rows.length) return { records: [], texts: [] };
  const reps = await ownRepresentations(ctx, exec, def, rows);
  const encode = encoderOf(reps) ?? JSON.stringify;
  const tagNames = await namesOfTags(ctx, exec, reps);
  const byId = new Map(rows.map((r, n) => [String(r.id), [r, reps[n]] as const]));
  const time = ctx.now();
  const user = ctx.principal.user;
  const type = objectType(def);
  const out: ChangeRecord[] = [];
  const texts: RecordTexts[] = [];
  for (const { id, detail } of objects) {
    const hit = byId.get(id);
    if (!hit) continue;
    const [row, rep] = hit;
    // Custom field values sit a level deeper here than on their object: deeper ones are kept as text.
    const data = fitDepth(storedData(def, row, rep, tagNames));
    const v2 = fitDepth(rep);
    // A representation cut to fit is no longer one of its batch's (the encoder's) objects.
    texts.push([JSON.stringify(data), v2 === rep ? encode(rep) : JSON.stringify(v2)]);
    out.push({
      id: newId(),
      time,
      user_id: user?.id ?? null,
      user_name: user?.username ?? 'Undefined',
      request_id: ctx.requestId,
      action,
      changed_object_type: type,
      changed_object_id: id,
      change_context: ctx.changeContext.context,
      change_context_detail: ctx.changeContext.detail.slice(0, MAX_CHANGE_CONTEXT_DETAIL),
      ...relatedObject(def, row),
      object_repr: reprOf(rep, id),
      object_data: data,
      object_data_v2: v2,
      _detail: detail?.data ?? null,
      _seq: detail?.seq ?? null,
    });
  }
  return { records: out, texts };
}

/**
 * The record's text: the object's display as it names nothing else (trimmed, as filters trim
 * their values). A display made only of other objects' names (a link model's "<job>: <queue>")
 * names none of them here, and a display with no letter or digit left is the object's id.
 */
function reprOf(rep: Obj, id: string): string {
  const shown = String(rep.display ?? '').trim();
  return (/[\p{L}\p{N}]/u.test(shown) ? shown : id).slice(0, MAX_OBJECT_REPR);
}

/** The object this one is part of (`partOf`: a component's device or module), as the reference's to_objectchange pins it. */
function relatedObject(def: ResourceDefinition, row: Row): { related_object_type: string | null; related_object_id: string | null } {
  for (const name of def.partOf ?? []) {
    const f = def.fields[name];
    if (f?.kind === 'fk' && row[f.column]) return { related_object_type: objectType(f.target()), related_object_id: String(row[f.column]) };
  }
  return { related_object_type: null, related_object_id: null };
}

/** The names of the tags the representations name (object_data lists tags by name, as the reference): one statement. */
async function namesOfTags(ctx: RequestContext, exec: Executor, reps: Obj[]): Promise<Map<string, string>> {
  const ids = [...new Set(reps.flatMap((r) => (Array.isArray(r.tags) ? r.tags.map((t: Obj) => String(t.id)) : [])))];
  const tag = ctx.registry.get('extras.tag');
  if (!ids.length || !tag) return new Map();
  // Tags the object carries, hidden from the requester or not: the record is the object's.
  const rows = await exec.query<{ id: string; name: string }>(sql`SELECT ${ident('id')}, ${ident('name')} ${unscoped(tag).from(inList(ident('id'), ids))}`);
  return new Map(rows.map((r) => [String(r.id), r.name]));
}

/**
 * The stored fields of an object (the reference's serialize_object: Django's serializer): every
 * field by its name (a foreign key as its target's id), `created` and `last_updated`, custom
 * fields, tags by name, writable many-to-many fields as ids; private columns (`_name`) and
 * write-only fields (a password) left out, as are binary columns (an address's bytes: its
 * text column is kept).
 */
export function storedData(def: ResourceDefinition, row: Row, rep: Obj, tagNames: Map<string, string>): Obj {
  const plan = storedDataPlan(def);
  const out: Obj = {};
  for (const [column, name, type] of plan.columns) {
    const v = plain(row[column], type);
    if (v === undefined) continue;
    out[name] = v;
  }
  if (plan.customFields) out.custom_fields = plain(row._custom_field_data, 'json') ?? {};
  for (const f of plan.lists) {
    const shown = rep[f.name];
    if (!Array.isArray(shown)) continue;
    if (f.kind === 'contentTypes') out[f.name] = shown;
    else out[f.name] = shown.map((t: Obj) => (f.name === 'tags' ? (tagNames.get(String(t.id)) ?? String(t.id)) : String(t.id)));
  }
  return out;
}

interface StoredDataPlan {
  /** Column, the name it is stored under (a foreign key's field name), its type. */
  columns: [column: string, name: string, type: string][];
  customFields: boolean;
  /** Writable many-to-many and content-type fields, listed from the representation. */
  lists: Field[];
}

const storedDataPlans = new WeakMap<ResourceDefinition, StoredDataPlan>();

/** What `storedData` takes of a model's rows, worked out once per definition. */
function storedDataPlan(def: ResourceDefinition): StoredDataPlan {
  let plan = storedDataPlans.get(def);
  if (plan) return plan;
  const types = columnTypes(def);
  const names = new Map<string, string>();
  const hidden = new Set<string>(['id']);
  for (const f of Object.values(def.fields)) {
    if (f.kind === 'fk') names.set(f.column, f.name);
    if (f.writeOnly && f.kind === 'scalar') hidden.add(f.column);
  }
  plan = {
    columns: storedColumns(def).filter((c) => !hidden.has(c) && !c.startsWith('_')).map((c) => [c, names.get(c) ?? c, types[c]]),
    customFields: modelColumns(def).some((c) => c.name === '_custom_field_data'),
    lists: Object.values(def.fields).filter((f) => (f.kind === 'm2m' && f.writable) || f.kind === 'contentTypes'),
  };
  storedDataPlans.set(def, plan);
  return plan;
}

let lastTime = NaN;
let lastIso = '';

/** A time's ISO text: the last one's again for the same instant (a batch's objects share their created and last_updated). */
function isoTime(d: Date): string {
  const t = d.getTime();
  if (t !== lastTime) {
    lastIso = d.toISOString();
    lastTime = t;
  }
  return lastIso;
}

/** A stored value as JSON: times as ISO text, JSON parsed, MySQL's 0/1 as booleans, whole numbers as numbers; bytes are left out. */
function plain(v: unknown, type: string): unknown {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return undefined;
  if (v instanceof Date) return type === 'date' ? isoTime(v).slice(0, 10) : isoTime(v);
  switch (type) {
    case 'json':
      if (typeof v !== 'string') return v;
      try {
        return JSON.parse(v);
      } catch {
        return v;
      }
    case 'boolean':
      return storedBoolean(v);
    case 'integer':
    case 'bigint': {
      const n = Number(v);
      return Number.isSafeInteger(n) ? n : String(v);
    }
    case 'uuid':
    case 'decimal':
      return String(v);
    default:
      return v;
  }
}

const RECORD_COLUMNS = storedColumns(objectChangeResource);
const RECORD_TYPES = RECORD_COLUMNS.map((c) => columnTypes(objectChangeResource)[c]);

/**
 * Characters of JSON text an INSERT of records carries at most: at most 12.6 MB in UTF-8 (three
 * bytes a character; a quote or backslash escaped in MySQL's string literal, two), within
 * MariaDB's default max_allowed_packet (16 MB), which bounds a statement's size.
 */
const MAX_RECORDS_TEXT = 4 * 1024 * 1024;

/**
 * The records of a batch (at most a chunk of them) in as few INSERTs as their size allows: one
 * for a bulk request's records of ordinary size. Their documents go as the JSON text already
 * made (`texts`), which both databases take for a JSON column.
 */
async function insertRecords(exec: Executor, records: ChangeRecord[], texts: RecordTexts[]): Promise<void> {
  const types = columnTypes(objectChangeResource);
  const d = exec.dialect;
  const most = rowsPerStatement(RECORD_COLUMNS.length);
  for (let i = 0; i < records.length; ) {
    const values: unknown[][] = [];
    for (let size = 0; i < records.length && values.length < most && (!values.length || size + texts[i][0].length + (texts[i][1]?.length ?? 0) <= MAX_RECORDS_TEXT); i++) {
      const r = records[i];
      const [data, v2] = texts[i];
      size += data.length + (v2?.length ?? 0);
      values.push(RECORD_COLUMNS.map((c) => recordValue(d, r, c, types[c], data, v2)));
    }
    await exec.execute(sql`INSERT INTO ${unscoped(objectChangeResource).table} ${d.insertRows(RECORD_COLUMNS, RECORD_TYPES, values)}`);
  }
}

/** What a record's column binds: its documents as their text, its times as the record's time. */
function recordValue(d: Dialect, r: ChangeRecord, column: string, type: ColumnType, data: string, v2: string | null): unknown {
  if (column === 'object_data') return new JsonText(data);
  if (column === 'object_data_v2') return v2 === null ? null : new JsonText(v2);
  if (column === 'created' || column === 'last_updated') return d.toDb(r.time, type);
  return d.toDb((r as unknown as Obj)[column] ?? null, type);
}
