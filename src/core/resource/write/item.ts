import type { Executor, Row } from '../../../database/db';
import type { RequestContext } from '../../context';
import { fieldList, type ResourceDefinition, type WriteContext } from '../definition';
import type { FieldErrors } from '../errors';
import type { ModelExtension } from '../extension';
import type { ForeignKeyField, GenericForeignKeyField, ManyToManyField } from '../fields';
import type { ReferenceResolver, RefSpec } from '../serialize/references';

/** What one write (a request's create, update or delete) carries through its stages. */
export interface WriteRun {
  ctx: RequestContext;
  exec: Executor;
  w: WriteContext;
  resolver: ReferenceResolver;
  /** Rows of related objects, by `<object type>:<id>`, loaded once for the whole batch. */
  relatedCache: Map<string, Row>;
}

export type WriteMode = 'create' | 'replace' | 'patch';

export interface PendingRef {
  field: ForeignKeyField | ManyToManyField | GenericForeignKeyField;
  target: ResourceDefinition;
  specs: RefSpec[];
  many: boolean;
  /** The attribute an unresolved reference is reported under (default: the field's name). */
  errorKey?: string;
}

/** One object of a write, from what the client sent to the values stored. */
export interface Item {
  index: number;
  id: string;
  /** The client gave the id of the object it creates (otherwise it is a new random UUID). */
  idGiven?: boolean;
  existing: Row | null;
  /** Column values the request sets. */
  set: Row;
  touched: Set<string>;
  refs: PendingRef[];
  related: Map<string, Row | null>;
  m2m: Map<string, string[]>;
  contentTypes: Map<string, string[]>;
  /** What the client sent under each extension's key (custom_fields), where it sent one. */
  extended: Map<ModelExtension, unknown>;
  errors: FieldErrors;
  /** Values after the write: existing merged with defaults and request values. */
  values: Row;
}

/** An item with nothing set yet. */
export function newItem(index: number, id: string, existing: Row | null): Item {
  return { index, id, existing, set: {}, touched: new Set(), refs: [], related: new Map(), m2m: new Map(), contentTypes: new Map(), extended: new Map(), errors: {}, values: {} };
}

export const INSERT_CHUNK = 500;

/**
 * Ids per statement that binds a list of ids and little else (`WHERE id IN`, a cascade's
 * lookup, a change log's rows): one array parameter on PostgreSQL, an IN list on MySQL. A bulk
 * request holds at most 1,000 objects (MAX_PAGE_SIZE's default, and the bulk load's own
 * chunks), so it is one statement for a whole request.
 */
export const ID_CHUNK = 1000;

/**
 * Parameters a multi-row statement binds at most: PostgreSQL's protocol counts them in 16 bits
 * (65,535); half of that leaves room for what else the statement binds.
 */
const MAX_PARAMS = 30_000;

/** Rows per multi-row statement (INSERT ... VALUES, UPDATE ... CASE) that binds `perRow` parameters a row: up to ID_CHUNK. */
export function rowsPerStatement(perRow: number): number {
  return Math.max(1, Math.min(ID_CHUNK, Math.floor(MAX_PARAMS / Math.max(1, perRow))));
}

/** A stored row with JSON columns parsed (MariaDB returns them as text), for rules to read. */
export function storedValues(def: ResourceDefinition, row: Row): Row {
  const out = { ...row };
  for (const f of fieldList(def)) {
    if (f.kind === 'scalar' && f.type === 'json' && typeof out[f.column] === 'string') {
      try {
        out[f.column] = JSON.parse(out[f.column]);
      } catch {
        /* not JSON text: keep the string */
      }
    }
  }
  return out;
}

export const isNotFound = (m: string) => m.startsWith('Related object not found');

export function chunks<T>(list: T[], size = INSERT_CHUNK): T[][] {
  if (list.length <= size) return list.length ? [list] : [];
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

export function keyOf(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return v.toString('hex');
  if (v instanceof Date) return v.toISOString();
  if (v === null || v === undefined) return null;
  return String(v);
}

/** Equality of a stored value and a written one, across driver representations. */
export function same(a: unknown, b: unknown): boolean {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (a === null || a === undefined || b === null || b === undefined) return false;
  if (typeof a === 'boolean' || typeof b === 'boolean') return Boolean(a === true || a === 1 || a === '1') === Boolean(b === true || b === 1 || b === '1');
  if ((typeof a === 'object' && !Buffer.isBuffer(a) && !(a instanceof Date)) || (typeof b === 'object' && !Buffer.isBuffer(b) && !(b instanceof Date))) {
    return JSON.stringify(typeof a === 'string' ? JSON.parse(a) : a) === JSON.stringify(typeof b === 'string' ? JSON.parse(b) : b);
  }
  const ka = keyOf(a);
  const kb = keyOf(b);
  if (ka === kb) return true;
  const na = Number(ka);
  const nb = Number(kb);
  return !Number.isNaN(na) && !Number.isNaN(nb) && String(ka).trim() !== '' && na === nb;
}
