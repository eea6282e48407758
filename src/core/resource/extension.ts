import type { Executor, Row } from '../../database/db';
import type { ColumnSchema } from '../../database/schema/schema';
import type { Sql } from '../../database/sql';
import type { RequestContext } from '../context';
import type { CustomFilter, Feature, ResourceDefinition } from './definition';
import type { Field, OpenApiSchema, ScalarField } from './fields';

/**
 * What an app contributes to every model that takes one of its features (the extras app: tags,
 * notes, custom fields; later relationships, computed fields, config contexts, the change log):
 * fields, stored columns, representation keys, `include=` blocks, filters, a body key on write,
 * CSV columns, OpenAPI and OPTIONS. The engine calls the extensions a model takes at each stage
 * and names none of them: core knows no extras table, field or permission.
 */
export interface ModelExtension {
  /** The feature a model lists in `features` to take it; absent: every model takes it. */
  feature?: Feature;
  /**
   * Which models take it, beyond (or, without a feature, instead of) a feature: those this
   * predicate accepts (the reference's model flags: the models contacts may be associated with).
   */
  applies?(def: ResourceDefinition): boolean;
  /** Fields added to the model (its own field of the same name wins). */
  fields?(def: ResourceDefinition, lookup: (type: string) => ResourceDefinition | undefined): Record<string, Field>;
  /** Filter names that stand for another (`tag` -> `tags`). */
  filterAliases?: Record<string, string>;
  /** Filters that are no field's (a model's own of the same name wins). */
  filters?: Record<string, CustomFilter>;
  /** Columns stored on the model's table. */
  columns?: ColumnSchema[];
  represent?: RepresentPart;
  filter?: PrefixFilter;
  write?: WritePart;
  csv?: CsvPart;
  observe?: ObservePart;
  listExport?: ListExportPart;
}

/**
 * A list rendered as a file instead of JSON when the query names it (`?export=<name>`: export
 * templates). The engine strips the parameter, applies the list's filters and the requester's
 * view scope, and hands the part the ordered rows; the part answers with the file (or throws a
 * 404/400 of its own).
 */
export interface ListExportPart {
  /** The query parameter that asks for it; an empty value asks for nothing. */
  param: string;
  /** `rows(max)`: the filtered, scoped, ordered rows of the whole list (at most `max` + 1, so the part can tell that there are more). */
  render(x: ExtensionContext, value: string, rows: (max: number) => Promise<Row[]>): Promise<ExportedFile>;
}

export interface ExportedFile {
  body: string;
  /** A valid header value (the part checks what users wrote). */
  contentType: string;
  /** Sent as an attachment under this name. */
  filename: string;
}

/** What a write did to one batch of objects of one model. */
export interface ChangeBatch {
  action: 'create' | 'update' | 'delete';
  objects: ChangedObject[];
}

export interface ChangedObject {
  id: string;
  /** The stored row before the write (updates; deletes where the writer holds it), else null. */
  before: Row | null;
  /**
   * The writer's own account of this change, kept with its record (not shown by the record's
   * API): `seq` numbers it among the object's accounts, `data` says what changed in the writer's
   * terms (identity intake: one history entry, read back at the identity's history endpoint).
   */
  detail?: { seq: number; data: Record<string, unknown> };
}

/**
 * Told of every batch a write makes (the change log; through it, job hooks and webhooks),
 * inside the write's transaction, so what it records stands or falls with the write: creates
 * and updates after the batch's rows (and links) are saved, deletes after the checks and before
 * the rows go (each cascaded model's objects as a batch of their own), while they can be read.
 * A throw rolls the write back. Called once per batch, never per object.
 */
export interface ObservePart {
  changed(x: ExtensionContext, batch: ChangeBatch): Promise<void>;
}

/** One key of a representation an extension adds, described for OpenAPI and OPTIONS. */
export interface ExtensionKey {
  schema: OpenApiSchema;
  /** OPTIONS type (`field`, `json`, ...). */
  type: string;
  label: string;
  /** Also accepted on write (custom fields). */
  writable?: boolean;
  /** A URL the engine builds from the object's own (its encoder may skip escaping it). */
  url?: boolean;
}

/** What an extension adds to each representation, after the model's fields and timestamps. */
export interface RepresentPart {
  keys: Record<string, ExtensionKey>;
  /** Shown on root representations only, and only when the request asks for it (`include=<name>`). */
  include?: string;
  /** Once per batch of rows, before any is represented (custom field definitions). */
  load?(x: ExtensionContext & NestedObjects, rows: Row[]): Promise<unknown>;
  /**
   * The models (object types) `load` reads, when they are all `watched`: nested objects that
   * show this part may then be kept between requests (serialize/kept-nested.ts). Absent with a
   * `load`: they are not.
   */
  reads?: string[];
  /** Sets its keys on one representation; `url` is the object's detail URL. */
  write(out: Record<string, unknown>, row: Row, url: string, loaded: unknown): void;
  /**
   * What GraphQL shows of it (`_custom_field_data`, `cf_<key>`, `config_context`): fields read
   * from what `write` set (after `load`, asking for `include` when it has one), and filter
   * arguments the part's prefix filter compiles. Absent: GraphQL shows nothing of it.
   */
  graphql?(x: ExtensionContext): Promise<GraphqlPart> | GraphqlPart;
}

/** The GraphQL scalar types an extension's fields take. */
export type GraphqlScalar = 'String' | 'Int' | 'Float' | 'Boolean' | 'JSON';

/** An extension's fields on a model's GraphQL type, and its filter arguments (lists of strings). */
export interface GraphqlPart {
  fields: Record<string, { type: GraphqlScalar; description?: string; read(out: Record<string, unknown>): unknown }>;
  filters?: string[];
}

/** What a representation's loader may nest: other models' objects at the batch's depth. */
export interface NestedObjects {
  /** The depth of the batch being represented (0: references). */
  depth: number;
  /** Objects of a model by id, represented one level below the batch (depth - 1), only those the requester may view. */
  nested(def: ResourceDefinition, ids: string[]): Promise<Map<string, Record<string, unknown>>>;
}

export interface ExtensionContext {
  ctx: RequestContext;
  exec: Executor;
  def: ResourceDefinition;
}

/** Query parameters that start with `prefix` (`cf_<key>[__<lookup>]`), compiled by the extension. */
export interface PrefixFilter {
  prefix: string;
  /** The stored spelling that permission constraints may use instead (Django's `_custom_field_data__<key>__<lookup>`); never a query parameter. */
  constraintPrefix?: string;
  /** A condition, null to ignore the parameter; throws UnknownFilterError or ValueError. */
  compile(h: PrefixFilterHelpers, key: string, values: unknown[]): Promise<Sql | null>;
}

export interface PrefixFilterHelpers extends ExtensionContext {
  alias: string;
  mode: 'query' | 'constraint' | 'reference';
  /** The engine's condition for a scalar lookup on an expression (the same as a field of that type gets). */
  scalar(f: Pick<ScalarField, 'type' | 'name'>, expr: Sql, lookup: string, values: unknown[]): Sql;
  /** UUIDs or names of another model's objects -> ids, as a foreign-key filter resolves them (in a query: among the visible ones, a value naming none a 400). */
  resolveIds(target: ResourceDefinition, values: unknown[]): Promise<string[]>;
  /** Another model's rows a filter may read on its way (in a query: those the requester may view). */
  rows(target: ResourceDefinition, alias: string): Promise<import('./query/rows').Rows>;
}

/** A body key an extension owns on write (`custom_fields`), or, without a key, a check of every write's values. */
export interface WritePart {
  key?: string;
  /**
   * After references resolve, before the model's rules: validates what the items sent under
   * `key` (undefined when absent) and sets the stored columns.
   */
  prepare(x: ExtensionContext & { create: boolean }, items: WriteItem[]): Promise<void>;
  /**
   * After the objects are saved (in the same transaction, before the permission re-check): writes
   * what the part owns beyond the model's row (relationship associations). Throws to refuse.
   */
  afterSave?(x: ExtensionContext & { create: boolean }, items: WriteItem[]): Promise<void>;
}

/** What a write part sees of one object being written. */
export interface WriteItem {
  /** What the client sent under the part's key (undefined: absent). */
  readonly given: unknown;
  readonly existing: Row | null;
  /** Column values after the write. */
  readonly values: Row;
  /** Sets a stored column. */
  set(column: string, value: unknown): void;
  addError(field: string, message: string): void;
}

/** Columns an extension adds to a model's CSV (after the model's own), and the headers it reads back. */
export interface CsvPart {
  columns(x: ExtensionContext): Promise<ExtensionCsvColumn[]>;
  /** The cell of one object, from its representation. */
  cell(column: ExtensionCsvColumn, representation: Record<string, unknown>): string;
  /**
   * Whether a header is the extension's; if so, puts its value into the input object. Whether it
   * is must depend on the header alone, not the cell: an import asks with its first row, then
   * gives the extension only its own columns' cells.
   */
  read(header: string, raw: string, input: Record<string, unknown>, x: ExtensionContext): Promise<boolean> | boolean;
}

export interface ExtensionCsvColumn {
  header: string;
  /** Whatever the extension needs to write the cell. */
  data?: unknown;
}

/** Raised by a prefix filter for a parameter it does not know (a 400 under STRICT_FILTERING). */
export class UnknownFilterError extends Error {}
