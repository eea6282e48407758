import { Injectable, StreamableFile } from '@nestjs/common';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { Executor } from '../../../database/db';
import { ident, inList, sql, TRUE } from '../../../database/sql';
import type { RequestContext } from '../../context';
import { customFieldsFor, CustomFieldType } from '../custom-fields';
import { objectType, ResourceDefinition } from '../definition';
import { BadRequestError, ValidationError } from '../errors';
import type { Field } from '../fields';
import { Query, parseDepth } from '../query/params';
import { isUuid } from '../query/values';
import { orderBy } from '../query/sort';
import { scopeCondition } from '../query/scope';
import { TAG_TYPE } from '../registry';
import { ResourceService } from '../resource.service';
import { Representer } from '../serialize/representer';
import { Column, csvColumns, naturalValues, NO_OBJECT, NULL } from './csv-layout';
import { append } from '../../collections';

const CHUNK = 1000;

/**
 * CSV for every resource (spec 4.8): export of lists (whole filtered, scoped result, streamed
 * in chunks) and objects, and import by POST/PUT/PATCH with text/csv, validated whole before
 * anything is saved.
 */
@Injectable()
export class CsvService {
  constructor(private readonly service: ResourceService) {}

  private visible(ctx: RequestContext) {
    const r = new Representer(ctx, ctx.db);
    return (f: Field) => r.visible(f);
  }

  async exportList(ctx: RequestContext, def: ResourceDefinition, q: Query): Promise<StreamableFile> {
    parseDepth(q, 'GET');
    const exec = ctx.db;
    const where = await this.service.where(ctx, exec, def, q);
    const idRows = await exec.query<{ id: string }>(sql`SELECT t.${ident('id')} AS id FROM ${ident(def.table)} t WHERE ${where} ORDER BY ${await orderBy(ctx, exec, def, q, 't')}`);
    return this.stream(ctx, def, idRows.map((r) => String(r.id)));
  }

  async exportDetail(ctx: RequestContext, def: ResourceDefinition, id: string, q: Query): Promise<StreamableFile> {
    parseDepth(q, 'GET');
    const row = await this.service.findOne(ctx, ctx.db, def, id, 'view');
    return this.stream(ctx, def, [String(row.id)]);
  }

  /**
   * CSV of records that are not a model's rows (free addresses, an identity's history): the
   * given columns, values written as in any export.
   */
  plain(model: string, columns: string[], records: Record<string, unknown>[]): StreamableFile {
    const rows = records.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? NULL : cell(r[c]))));
    return new StreamableFile(Buffer.from(stringify([columns, ...rows])), {
      type: 'text/csv; charset=UTF-8',
      disposition: `attachment; filename="netkeel_${model}_data.csv"`,
    });
  }

  private async stream(ctx: RequestContext, def: ResourceDefinition, ids: string[]): Promise<StreamableFile> {
    const exec = ctx.db;
    const cfs = def.features.includes('customFields') ? await customFieldsFor(ctx, objectType(def)) : [];
    const columns = await csvColumns(ctx, exec, def, cfs, this.visible(ctx));
    const self = this;
    async function* lines() {
      yield stringify([columns.map((c) => c.header)]);
      for (let i = 0; i < ids.length; i += CHUNK) {
        const records = await self.records(ctx, exec, def, ids.slice(i, i + CHUNK), columns);
        yield stringify(records);
      }
    }
    return new StreamableFile(Readable.from(lines()), {
      type: 'text/csv; charset=UTF-8',
      disposition: `attachment; filename="netkeel_${def.model}_data.csv"`,
    });
  }

  private async records(ctx: RequestContext, exec: Executor, def: ResourceDefinition, ids: string[], columns: Column[]): Promise<string[][]> {
    const rows = await exec.query(sql`SELECT t.* FROM ${ident(def.table)} t WHERE ${inList(ident('t', 'id'), ids)}`);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    const ordered = ids.map((id) => byId.get(id)).filter((r) => !!r);
    const [reps, natural, tags] = await Promise.all([
      new Representer(ctx, exec).represent(def, ordered, { depth: 0 }),
      naturalValues(ctx, exec, def, ordered, columns),
      def.fields.tags ? this.tagNames(ctx, exec, def, ids) : Promise.resolve(new Map<string, string[]>()),
    ]);
    return reps.map((rep) => {
      const id = String(rep.id);
      return columns.map((c) => {
        switch (c.kind) {
          case 'natural':
          case 'generic':
            return natural.get(id)?.get(c.header) ?? NO_OBJECT;
          case 'tags':
            return (tags.get(id) ?? []).join(',');
          case 'cf': {
            const v = (rep.custom_fields as Record<string, unknown> | undefined)?.[c.key];
            if (v === null || v === undefined) return '';
            // JSON values as JSON text, so a number stays a number and a string a string.
            // An empty selection is `[]`, told apart from an unset field (an empty cell).
            if (c.type === 'multi-select' && Array.isArray(v) && !v.length) return '[]';
            return c.type === 'json' ? JSON.stringify(v) : cell(v);
          }
          default: {
            const v = rep[c.key];
            if (v === null || v === undefined) return NULL;
            const f = def.fields[c.key];
            return f?.kind === 'scalar' && f.type === 'json' ? jsonCell(v) : cell(v);
          }
        }
      });
    });
  }

  /** Tag names per object; a tag the requester may not view is written as its id, as JSON shows it only as a reference. */
  private async tagNames(ctx: RequestContext, exec: Executor, def: ResourceDefinition, ids: string[]): Promise<Map<string, string[]>> {
    const tagDef = ctx.registry.get(TAG_TYPE);
    const visible = tagDef ? await scopeCondition(ctx, exec, tagDef, 'view', 'tg') : TRUE;
    const rows = await exec.query<{ object_id: string; name: string; tag_id: string; visible: unknown }>(
      sql`SELECT ti.${ident('object_id')} AS object_id, tg.${ident('name')} AS name, tg.${ident('id')} AS tag_id, CASE WHEN ${visible} THEN 1 ELSE 0 END AS visible
          FROM ${ident('extras_taggeditem')} ti JOIN ${ident('extras_tag')} tg ON tg.${ident('id')} = ti.${ident('tag_id')}
          WHERE ti.${ident('content_type')} = ${objectType(def)} AND ${inList(ident('ti', 'object_id'), ids)} ORDER BY tg.${ident('name')}`,
    );
    const out = new Map<string, string[]>();
    rows.forEach((r) => append(out, String(r.object_id), Number(r.visible) === 1 ? r.name : String(r.tag_id)));
    return out;
  }

  // ---- import ----

  /** CSV text -> API input objects (the attribute-object form for related fields). */
  async parse(ctx: RequestContext, def: ResourceDefinition, buf: Buffer): Promise<Record<string, unknown>[]> {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    } catch {
      throw new BadRequestError('The CSV is not valid UTF-8 text; save it as UTF-8 and try again.');
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let records: string[][];
    try {
      records = parse(text, { skip_empty_lines: true, relax_column_count: false, bom: true });
    } catch (e) {
      const err = e as Error & { code?: string; lines?: number; record?: unknown[] };
      const m = /expect (\d+), got (\d+) on line (\d+)/.exec(err.message);
      if (m) throw new BadRequestError(`Row ${m[3]}: expected ${m[1]} columns, got ${m[2]}.`);
      throw new BadRequestError(`Row ${err.lines ?? '?'}: ${err.message}`);
    }
    if (!records.length) throw new BadRequestError('The CSV is empty: it needs a header row and at least one data row.');
    const header = records[0].map((h) => h.trim());
    const seen = new Map<string, number>();
    header.forEach((h, i) => {
      if (!h) throw new BadRequestError(`Row 1: Column ${i + 1}: missing/empty header for this column.`);
      if (seen.has(h)) throw new BadRequestError(`Row 1: Column ${i + 1}: duplicate header "${h}" (also column ${seen.get(h)! + 1}).`);
      seen.set(h, i);
    });
    if (records.length < 2) throw new BadRequestError('The CSV has a header row but no data rows.');
    const cfTypes = new Map<string, CustomFieldType>();
    if (def.features.includes('customFields')) for (const cf of await customFieldsFor(ctx, objectType(def))) cfTypes.set(cf.key, cf.type);
    return records.slice(1).map((cells) => this.rowToInput(def, header, cells, cfTypes));
  }

  private rowToInput(def: ResourceDefinition, header: string[], cells: string[], cfTypes: Map<string, CustomFieldType>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const groups = new Map<string, Record<string, unknown>>();
    header.forEach((h, i) => {
      const raw = cells[i];
      if (h.startsWith('cf_')) {
        const cf = (out.custom_fields ??= {}) as Record<string, unknown>;
        cf[h.slice(3)] = raw === '' || raw === NULL ? null : customFieldCell(cfTypes.get(h.slice(3)), raw);
        return;
      }
      const [head, ...rest] = h.split('__');
      const f = def.fields[head];
      if (h === 'id') {
        if (raw) out.id = raw;
        return;
      }
      if (!f) {
        // `<gfk>_type` / `<gfk>_id` columns.
        const g = Object.values(def.fields).find((x) => x.kind === 'gfk' && (h === `${x.name}_type` || h === `${x.name}_id`));
        if (g) out[h] = raw === '' || raw === NULL ? null : raw;
        return;
      }
      if (f.readOnly && f.kind !== 'composite') return;
      if (rest.length && (f.kind === 'fk' || f.kind === 'gfk')) {
        // A generic relation's columns for other types' natural keys are empty.
        if (f.kind === 'gfk' && raw === '') return;
        const g = groups.get(head) ?? Object.create(null);
        setPath(g, rest, raw === NULL || raw === NO_OBJECT ? null : raw, raw === NO_OBJECT);
        groups.set(head, g);
        return;
      }
      if (rest.length) return;
      out[head] = this.cellValue(f, raw);
    });
    for (const [name, g] of groups) {
      // A related object the exporter could not view is written as its id in the first column.
      const first = Object.values(g)[0];
      if (typeof first === 'string' && isUuid(first)) out[name] = first;
      else out[name] = allNoObject(g) ? null : stripMarks(g);
    }
    return out;
  }

  private cellValue(f: Field, raw: string): unknown {
    if (raw === NULL) return null;
    switch (f.kind) {
      case 'm2m':
      case 'contentTypes':
        return raw === '' ? [] : raw.split(',').map((s) => s.trim()).filter(Boolean);
      case 'scalar':
        if (raw === '' && f.nullable) return null;
        if (f.type === 'json') return jsonValue(raw);
        return raw;
      case 'fk':
        return raw === '' || raw === NO_OBJECT ? null : raw;
      default:
        return raw;
    }
  }

  async importCreate(ctx: RequestContext, def: ResourceDefinition, buf: Buffer, q: Query): Promise<unknown[]> {
    const inputs = await this.parse(ctx, def, buf);
    try {
      return (await this.service.create(ctx, def, inputs, q)) as unknown[];
    } catch (e) {
      throw rowErrors(e);
    }
  }

  async importUpdate(ctx: RequestContext, def: ResourceDefinition, buf: Buffer, mode: 'replace' | 'patch', q: Query): Promise<unknown> {
    const inputs = await this.parse(ctx, def, buf);
    try {
      return await this.service.bulkUpdate(ctx, def, inputs, mode, q);
    } catch (e) {
      throw rowErrors(e);
    }
  }

  async firstRow(ctx: RequestContext, def: ResourceDefinition, buf: Buffer): Promise<Record<string, unknown>> {
    return (await this.parse(ctx, def, buf))[0];
  }
}

/** Errors of a CSV import name the row (1 is the header) instead of a list position. */
function rowErrors(e: unknown): unknown {
  if (e instanceof ValidationError && Array.isArray(e.errors)) {
    const out: Record<string, unknown> = {};
    (e.errors as unknown[]).forEach((err, i) => {
      if (err && typeof err === 'object' && Object.keys(err).length) out[`row ${i + 2}`] = err;
    });
    return new ValidationError(out as never);
  }
  return e;
}

const MARK = Symbol('noObject');

function setPath(o: Record<string, unknown>, path: string[], value: unknown, noObject: boolean): void {
  let cur = o;
  // Header segments are the client's: objects without a prototype, so `constructor__prototype` is only a path.
  for (const p of path.slice(0, -1)) cur = (Object.hasOwn(cur, p) && cur[p] && typeof cur[p] === 'object' ? cur[p] : (cur[p] = Object.create(null))) as Record<string, unknown>;
  cur[path[path.length - 1]] = value;
  if (!noObject) (o as Record<symbol, boolean>)[MARK] = true;
}

/** A column group with no value at all (every cell NoObject or NULL) is no related object. */
function allNoObject(g: Record<string, unknown>): boolean {
  const empty = (v: unknown): boolean => v === null || (typeof v === 'object' && Object.values(v as object).every(empty));
  return !(g as Record<symbol, boolean>)[MARK] || empty(g);
}

function stripMarks(g: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(g));
}

function cell(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (Array.isArray(v)) return v.map((x) => (x && typeof x === 'object' ? String((x as { id?: unknown }).id ?? JSON.stringify(x)) : String(x))).join(',');
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('value' in o && 'label' in o) return o.value === null ? NULL : String(o.value);
    if ('id' in o && 'url' in o) return String(o.id);
    return JSON.stringify(v);
  }
  return String(v);
}

/** A JSON field's cell: JSON text, read back exactly (a number stays a number, a list of objects a list). */
function jsonCell(v: unknown): string {
  return JSON.stringify(v);
}

/** A JSON field's cell on import: JSON text, or else a hand-written comma list (`view,change`). */
function jsonValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw.trim() === '' ? [] : raw.split(',').map((x) => (/^-?\d+$/.test(x.trim()) ? Number(x) : x.trim()));
  }
}

/** A custom field cell by the field's type (an unknown key is passed on for the writer to refuse). */
function customFieldCell(type: CustomFieldType | undefined, raw: string): unknown {
  if (type === 'multi-select') return raw.trim() === '[]' ? [] : raw.split(',').map((x) => x.trim()).filter(Boolean);
  if (type === 'json') {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return type ? raw : parseCell(raw);
}

function parseCell(raw: string): unknown {
  const s = raw.trim();
  if (s.startsWith('{') || s.startsWith('[')) {
    try {
      return JSON.parse(s);
    } catch {
      return raw;
    }
  }
  return raw;
}
