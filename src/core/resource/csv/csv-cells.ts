import { checkJsonDepth } from '../json-limits';
import { ValidationError } from '../errors';

/** A null value, and a path past a related object that does not exist (the reference's words). */
export const NULL = 'NULL';
export const NO_OBJECT = 'NoObject';

/** Errors of a CSV import name the row (1 is the header) instead of a list position. */
export function rowErrors(e: unknown): unknown {
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

export function setPath(o: Record<string, unknown>, path: string[], value: unknown, noObject: boolean): void {
  let cur = o;
  // Header segments are the client's: objects without a prototype, so `constructor__prototype` is only a path.
  for (const p of path.slice(0, -1)) cur = (Object.hasOwn(cur, p) && cur[p] && typeof cur[p] === 'object' ? cur[p] : (cur[p] = Object.create(null))) as Record<string, unknown>;
  cur[path[path.length - 1]] = value;
  if (!noObject) (o as Record<symbol, boolean>)[MARK] = true;
}

/** A column group with no value at all (every cell NoObject or NULL) is no related object. */
export function allNoObject(g: Record<string, unknown>): boolean {
  const empty = (v: unknown): boolean => v === null || (typeof v === 'object' && Object.values(v as object).every(empty));
  return !(g as Record<symbol, boolean>)[MARK] || empty(g);
}

/**
 * The group as plain attributes; a nested group with no value at all is no related object
 * (null), as a top-level one is: a rear port's `module__id` of NULL names a port with no module.
 */
export function stripMarks(g: Record<string, unknown>): Record<string, unknown> {
  const empty = (v: unknown): boolean => v === null || (typeof v === 'object' && Object.values(v as object).every(empty));
  const collapse = (v: unknown): unknown => {
    if (!v || typeof v !== 'object') return v;
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = x && typeof x === 'object' && empty(x) ? null : collapse(x);
    return o;
  };
  // Plain objects come out: the groups' (without a prototype) and their mark are left behind.
  return collapse(g) as Record<string, unknown>;
}

/** A value as a CSV cell: booleans as True/False, lists comma-joined, choices by value, related objects by id, objects as JSON. */
export function csvCell(v: unknown): string {
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
export function jsonCell(v: unknown): string {
  return JSON.stringify(v);
}

/** A JSON field's cell on import: JSON text, or else a hand-written comma list (`view,change`). */
export function jsonValue(raw: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw.trim() === '' ? [] : raw.split(',').map((x) => (/^-?\d+$/.test(x.trim()) ? Number(x) : x.trim()));
  }
  checkJsonDepth(value);
  return value;
}

/** A list field's cell on import: comma-separated items (integers as numbers; a non-number is left for validation to name). */
export function listValue(raw: string, type: 'integer' | 'string'): unknown[] {
  if (raw.trim() === '') return [];
  return raw.split(',').map((x) => (type === 'integer' && /^-?\d{1,15}$/.test(x.trim()) ? Number(x) : x.trim()));
}

/** What a spreadsheet would run as a formula (or a quote mark, which marks one neutralised). */
const FORMULA_START = /^[=+\-@\t\r']/;
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * A cell as exported: one that a spreadsheet would take for a formula (starting with `=`, `+`,
 * `-`, `@`, tab or CR) is prefixed with a quote mark, and so is one that starts with a quote
 * mark itself, so that `importedCell` can undo exactly what this did. Numbers stay as they are.
 */
export function exportedCell(cell: string): string {
  return FORMULA_START.test(cell) && !NUMBER.test(cell) ? `'${cell}` : cell;
}

/** Undoes `exportedCell`: a quote mark followed by what it protects is dropped; any other cell is kept. */
export function importedCell(cell: string): string {
  return cell.length > 1 && cell[0] === "'" && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}
