import { parse } from 'csv-parse/sync';
import type { RequestContext } from '../../context';
import type { ResourceDefinition } from '../definition';
import { BadRequestError } from '../errors';
import type { ExtensionContext, ModelExtension } from '../extension';
import type { Field } from '../fields';
import { isUuid } from '../query/values';
import { allNoObject, importedCell, jsonValue, listValue, NO_OBJECT, NULL, setPath, stripMarks } from './csv-cells';

/**
 * CSV import: the text parsed, its headers checked, and each row turned into the input object a
 * JSON write would send (related objects as attribute objects from their `a__b` columns, the
 * extensions' columns read by the extensions), for the same writer.
 */
/** CSV text -> API input objects (the attribute-object form for related fields). */
export async function parseCsv(ctx: RequestContext, def: ResourceDefinition, buf: Buffer): Promise<Record<string, unknown>[]> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    throw new BadRequestError('The CSV is not valid UTF-8 text; save it as UTF-8 and try again.');
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let records: string[][];
  try {
    records = csvRecords(text);
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
  const read = rowReader({ ctx, exec: ctx.db, def }, header);
  const out: Record<string, unknown>[] = [];
  // Cells come back as they were before the export neutralised formulas (exportedCell).
  for (let r = 1; r < records.length; r++) out.push(await read(records[r].map(importedCell)));
  return out;
}

/**
 * The records of a CSV text (empty lines skipped, every record as long as the first). A text
 * without quotes or carriage returns (what scripts write) is its lines split at commas, as
 * csv-parse would read it, in a tenth of the time; anything else, and a text whose records
 * differ in length (for csv-parse's error), is csv-parse's.
 */
export function csvRecords(text: string): string[][] {
  if (!text.includes('"') && !text.includes('\r')) {
    const records: string[][] = [];
    for (const line of text.split('\n')) if (line !== '') records.push(line.split(','));
    if (records.every((r) => r.length === records[0].length)) return records;
  }
  return parse(text, { skip_empty_lines: true, relax_column_count: false, bom: true }) as string[][];
}

/** Puts one cell of a column into the input object (related objects gathered per field in `groups`). */
type CellReader = (raw: string, out: Record<string, unknown>, groups: Map<string, Record<string, unknown>>) => void;

/**
 * Reads the rows under one header into input objects. What each column is (an extension's, a
 * field's, a related object's attribute) is worked out once, not per cell: an extension's
 * columns from the first row (whether a header is an extension's depends on the header alone),
 * the model's own from the header.
 */
function rowReader(x: ExtensionContext, header: string[]): (cells: string[]) => Promise<Record<string, unknown>> {
  const extensions = x.ctx.registry.extensionsOf(x.def).filter((e) => e.csv);
  const own = header.map((h) => cellReader(x.def, h));
  /** Per column, the extension that reads it, or null: the model's own. */
  let owners: (ModelExtension | null)[] | undefined;
  return async (cells) => {
    const out: Record<string, unknown> = {};
    const groups = new Map<string, Record<string, unknown>>();
    const firstRow = !owners;
    owners ??= [];
    for (let i = 0; i < header.length; i++) {
      const raw = cells[i];
      if (firstRow) {
        owners[i] = null;
        for (const e of extensions) if (await e.csv!.read(header[i], raw, out, x)) {
          owners[i] = e;
          break;
        }
      } else if (owners[i]) await owners[i]!.csv!.read(header[i], raw, out, x);
      if (!owners[i]) own[i](raw, out, groups);
    }
    for (const [name, g] of groups) {
      // A related object the exporter could not view is written as its id in the first column.
      const first = Object.values(g)[0];
      if (typeof first === 'string' && isUuid(first)) out[name] = first;
      else out[name] = allNoObject(g) ? null : stripMarks(g);
    }
    return out;
  };
}

function cellValue(f: Field, raw: string): unknown {
  if (raw === NULL) return null;
  switch (f.kind) {
    case 'm2m':
    case 'contentTypes':
      return raw === '' ? [] : raw.split(',').map((s) => s.trim()).filter(Boolean);
    case 'scalar':
      // A list's empty cell is the empty list (null is written NULL).
      if (f.listOf) return listValue(raw, f.listOf.type);
      if (raw === '' && f.nullable) return null;
      if (f.type === 'json') return jsonValue(raw);
      return raw;
    case 'fk':
      return raw === '' || raw === NO_OBJECT ? null : raw;
    default:
      return raw;
  }
}

/** How a column of the model's own (not an extension's) is read. */
function cellReader(def: ResourceDefinition, h: string): CellReader {
  const [head, ...rest] = h.split('__');
  const f = def.fields[head];
  if (h === 'id') {
    return (raw, out) => {
      if (raw) out.id = raw;
    };
  }
  if (!f) {
    // `<gfk>_type` / `<gfk>_id` columns.
    const g = Object.values(def.fields).find((x) => x.kind === 'gfk' && (h === x.typeKey! || h === x.idKey!));
    return g ? (raw, out) => void (out[h] = raw === '' || raw === NULL ? null : raw) : () => undefined;
  }
  if (f.readOnly && f.kind !== 'composite') return () => undefined;
  if (rest.length && (f.kind === 'fk' || f.kind === 'gfk')) {
    return (raw, _out, groups) => {
      // A generic relation's columns for other types' natural keys are empty.
      if (f.kind === 'gfk' && raw === '') return;
      const g = groups.get(head) ?? Object.create(null);
      setPath(g, rest, raw === NULL || raw === NO_OBJECT ? null : raw, raw === NO_OBJECT);
      groups.set(head, g);
    };
  }
  if (rest.length) return () => undefined;
  return (raw, out) => void (out[head] = cellValue(f, raw));
}

/**
 * A browsable-API HTML form's fields (name, text) -> the input object a JSON write would send:
 * the fields read as the cells of one CSV row, so a form's text means what it means in a CSV
 * import (`true`, a number, a related object's id or natural key). `omitEmpty` (a create): an
 * empty field is left out, so that the model's default applies.
 */
export async function formToInput(ctx: RequestContext, def: ResourceDefinition, fields: [string, string][], omitEmpty: boolean): Promise<Record<string, unknown>> {
  const kept = fields.filter(([, v]) => !(omitEmpty && v.trim() === ''));
  const seen = new Set<string>();
  for (const [k] of kept) {
    if (seen.has(k)) throw new BadRequestError(`The form has the field "${k}" twice.`);
    seen.add(k);
  }
  return rowReader({ ctx, exec: ctx.db, def }, kept.map(([k]) => k))(kept.map(([, v]) => v));
}
