import type { Executor, Row } from '../../database/db';
import type { RequestContext } from '../context';
import type { FieldErrors } from './errors';
import type { ColumnSpec } from '../../database/schema/schema';
import type { Constraint, Field } from './fields';
import { applyMixins, Mixin } from './mixin';

/**
 * A capability a model takes part in, named in its `features`: what an app's extensions add
 * (`tags`, `notes`, `customFields`), or what another model may point at (`locations`,
 * `statuses`, `roles`: the content types a location type, status or role may be enabled for).
 */
export type Feature = string;

/** What a model rule or hook sees of one object being written. */
export interface WriteState {
  /** True for POST, false for PUT/PATCH. */
  readonly create: boolean;
  /** The stored row before this write (updates only). */
  readonly existing: Row | null;
  /** Column values after the write (stored values merged with the request's). */
  readonly values: Row;
  /** Names of the API fields the request set. */
  readonly touched: ReadonlySet<string>;
  /** The rows of related objects for foreign keys, as the write will store them. */
  related(fieldName: string): Row | null;
  /** The set of target ids of a many-to-many field after the write (undefined: unchanged). */
  m2m(fieldName: string): string[] | undefined;
  /** The set after the write in every case: the request's, or else the stored one (none on create). */
  linked(fieldName: string): Promise<string[]>;
}

export interface WriteContext {
  readonly ctx: RequestContext;
  readonly exec: Executor;
}

export interface UniqueTogether {
  fields: string[];
  /** Error text (or a function of the conflicting values); defaults to "The fields a, b must make a unique set." */
  message?: string | ((values: unknown[]) => string);
  /** Field to report under (default non_field_errors), or a function of the conflicting values. */
  field?: string | ((values: unknown[]) => string);
  /**
   * Treat NULLs as equal (a root-level duplicate is still a duplicate): all of the set's, or
   * those of the fields named (a device without a tenant); a NULL in another field never collides.
   */
  nullsEqual?: boolean | string[];
  /** The database's unique key: false for none (the engine checks alone), or its columns in the key's order (default `columns`). */
  db?: false | string[];
  /**
   * The stored columns compared (default: the fields' columns), when a composite field stores
   * more than the key (a prefix's key is namespace, length and network, not its text). Put the
   * most selective column last: rows of a batch that agree on the others share one IN list.
   */
  columns?: string[];
}

/** What `display` reads besides its row: valid during the call only (one object serves a whole batch). */
export interface DisplayHelpers {
  /** Loaded row of a foreign key listed in `displayUses`: its id and the columns declared there. */
  related(fieldName: string): Row | null;
  /** Names of the ancestors of a tree object, root first. */
  ancestors: string[];
}

/** A filter that is not derived from a field: compiled by the definition itself. */
export interface CustomFilter {
  /**
   * Lookups that may follow the name; '' is the bare name. Listing `n` enables `<name>__n`,
   * which the engine compiles as the negation of the bare filter: `compile` never sees `n`.
   */
  lookups?: string[];
  /** Several values OR together unless `and` is true. */
  compile: (values: unknown[], lookup: string, helpers: CustomFilterHelpers) => Promise<import('../../database/sql').Sql> | import('../../database/sql').Sql;
  /** Values are booleans. */
  boolean?: boolean;
}

export interface CustomFilterHelpers {
  alias: string;
  ctx: RequestContext;
  exec: Executor;
  def: ResourceDefinition;
  col(column: string): import('../../database/sql').Sql;
  /** `query`: a query parameter; `constraint`: a permission constraint; `reference`: attributes naming a related object on write (typed, but scoped like a query). */
  mode: 'query' | 'constraint' | 'reference';
  /** Raise a 400 for this parameter. */
  invalid(message: string): never;
  /**
   * UUIDs or names of objects of a model -> their ids, as foreign-key filters resolve them: in
   * a query among the objects the requester may view, a value matching nothing being a 400; in
   * a constraint among all objects (a constraint must not depend on the requester's own scope,
   * which it may be computing), a value matching nothing matching nothing.
   */
  resolveIds(target: ResourceDefinition, values: unknown[]): Promise<string[]>;
  /** Compiles another filter of the same model (custom filters built from others). */
  term(key: string, values: unknown[]): Promise<import('../../database/sql').Sql | null>;
  /**
   * The rows of a model a filter may read on its way (a sub-select through another model): in a
   * query those the requester may view, so that a filter through a hidden object matches
   * nothing; in a permission constraint all of them.
   */
  rows(target: ResourceDefinition, alias: string): Promise<import('./query/rows').Rows>;
}

export interface ResourceDefinition {
  /** App (URL segment) and, unless `appLabel` says otherwise, first half of object_type. */
  app: string;
  /** Django app label when it differs from the URL app (groups live at /api/users/ as auth.group). */
  appLabel?: string;
  /**
   * The path of the app's API root under `/api/` when it is not `app`: a plugin's models live
   * under `plugins/<base_url>` (set by definePlugin).
   */
  apiBase?: string;
  /** Django-style model name: second half of object_type and of permission names. */
  model: string;
  /** URL segment of the list endpoint. */
  slug: string;
  /** The model's table (default `<app>_<model>`). */
  table: string;
  /** The reference's class name, in "No <ClassName> matches the given query." (default: the verbose name in PascalCase). */
  className: string;
  verboseName: string;
  verboseNamePlural: string;
  description?: string;
  fields: Record<string, Field>;
  /** Fields of the natural key; foreign keys expand into the target's natural key. */
  naturalKey: string[];
  /**
   * The lookup paths of the natural key, where they are not the natural-key fields expanded:
   * a key field hidden from the representation is named through a readable path instead, so
   * that CSV columns and composite keys say what a client can see.
   */
  naturalKeyPaths?: string[];
  /** Default ordering: field or column names, `-` for descending; `id` is always appended. */
  ordering: string[];
  display: (row: Row, h: DisplayHelpers) => string;
  /**
   * Foreign keys whose rows display needs, each with the columns it reads (`id` always, and
   * `name` where the target has one and the key is part of the natural key, for natural_slug).
   * A list page reads them with its own statement, joined; anything else by id. A column named
   * `<fk>__<column>` is read one foreign key further (a device type's `manufacturer__name`),
   * `<fk>__<fk>__<column>` two, and so on; past a hidden object, NULL.
   */
  displayUses?: Record<string, string[]>;
  /**
   * The field whose value names an object in filters, besides its id (Nautobot's `to_field_name`:
   * a device type is named by its `model`); default `name`, or the one field of the natural key.
   */
  filterName?: string;
  /** Free-text `q` search: fields matched case-insensitively (contains). */
  search?: string[];
  features: Feature[];
  /** Tree model: the self-referencing foreign key. */
  tree?: { parent: string };
  uniqueTogether?: UniqueTogether[];
  /** Model rules (Nautobot's clean()): return field errors. */
  rules?: (state: WriteState, w: WriteContext) => Promise<FieldErrors | void> | FieldErrors | void;
  /**
   * Model rules that need the whole batch at once (one lookup for all objects, e.g. parents);
   * runs after `rules` on the objects without errors, before uniqueness. May set `values`.
   * Returns errors aligned with the states.
   */
  validateBatch?: (states: WriteState[], w: WriteContext) => Promise<(FieldErrors | void)[] | void>;
  /**
   * Locks to take before the rows of an update or delete are locked, given those rows read
   * without a lock and the request's inputs (null for a delete), so that every writer takes
   * the wider lock (a prefix's namespace) before row locks: one order, no deadlock.
   */
  beforeRowLock?: (rows: Row[], inputs: Record<string, unknown>[] | null, w: WriteContext) => Promise<void>;
  /** Computes stored columns that derive from others (natural sort keys, parents), before insert/update. */
  beforeSave?: (states: WriteState[], w: WriteContext) => Promise<void> | void;
  /** Runs inside the write transaction after rows are saved (re-parenting, cascades). */
  afterSave?: (ids: string[], w: WriteContext, states: WriteState[]) => Promise<void> | void;
  /** Runs inside the delete transaction before rows are deleted. */
  beforeDelete?: (rows: Row[], w: WriteContext) => Promise<void> | void;
  afterDelete?: (rows: Row[], w: WriteContext) => Promise<void> | void;
  /** Filters that are not fields. */
  filters?: Record<string, CustomFilter>;
  /** Filter names that stand for a path (`tenant_group` -> `tenant__tenant_group`). */
  filterAliases?: Record<string, string>;
  /** Which methods the API offers. */
  readOnly?: boolean;
  /** Single creates and updates also take multipart/form-data (file fields: `fields.ts` `file`). */
  multipart?: boolean;
  /**
   * The writes the API offers (default: every one, none for `readOnly`); the others answer 405.
   * Jobs are changed and deleted but never created by clients; job results and scheduled jobs,
   * read-only otherwise, are deleted.
   */
  writes?: readonly ApiWrite[];
  /** Actions for which HTTP Basic credentials are accepted (token provisioning). */
  basicAuth?: ('view' | 'add')[];
  /** Never readable without a permission, even under EXEMPT_VIEW_PERMISSIONS. */
  neverExempt?: boolean;
  /** A generic foreign key whose target's view scope this model's objects share (notes). */
  scopeVia?: string;
  /** Restrict every read and write to a base scope (tokens: own tokens only). */
  baseScope?: (ctx: RequestContext) => Constraint | null;
  /**
   * Stored columns that no field declares (the parts of composite fields, natural sort keys);
   * beforeSave or a composite's parse sets them. `sortable` ones may be named in `?sort=`.
   */
  columns?: Record<string, ColumnSpec & { sortable?: boolean }>;
  /** Indexes beyond those the fields imply (unique fields, unique sets, foreign keys): column lists. */
  indexes?: (string[] | { columns: string[]; unique?: boolean })[];
  /** Other processes cache what they read of this model (tokens, permissions): its tables notify changes. */
  watched?: boolean;
  /**
   * Foreign keys naming the object this one is part of (a component's device or module: the
   * first that is set), which the change log records as its related object (the reference's
   * `to_objectchange`).
   */
  partOf?: string[];
}

export type ResourceInput = Omit<ResourceDefinition, 'fields' | 'verboseName' | 'verboseNamePlural' | 'features' | 'table' | 'className' | 'naturalKey' | 'ordering' | 'display'> & {
  fields: Record<string, Field>;
  /** Field groups taken whole (status, tenant, a unique name, a tree): see mixin.ts. */
  mixins?: Mixin[];
  /** Required unless a mixin gives them. */
  naturalKey?: string[];
  ordering?: string[];
  display?: ResourceDefinition['display'];
  table?: string;
  className?: string;
  verboseName?: string;
  verboseNamePlural?: string;
  features?: Feature[];
};

/** "IP address" -> "IPAddress", "location type" -> "LocationType". */
const pascalCase = (words: string) => words.split(/\s+/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

/** Declares a model once; the engine derives routes, filters, depth, CSV and OpenAPI from it. */
export function defineResource(declared: ResourceInput): ResourceDefinition {
  const { mixins, ...rest } = declared;
  let def: ResourceDefinition;
  const input = applyMixins(rest, mixins ?? [], () => def);
  for (const k of ['naturalKey', 'ordering', 'display'] as const) if (!input[k]) throw new Error(`${declared.app}.${declared.model}: declare ${k} (or take a mixin that gives it)`);
  const verboseName = input.verboseName ?? input.model.replace(/_/g, ' ');
  def = {
    verboseName,
    verboseNamePlural: input.slug.replace(/-/g, ' '),
    table: `${input.app}_${input.model}`,
    className: pascalCase(verboseName),
    features: [],
    ...input,
    // Looked up by names a client sends (filters, sort, bodies): maps without a prototype, so
    // `__proto__`, `constructor` or `toString` name nothing.
    fields: ownMap(input.fields),
    filters: input.filters && ownMap(input.filters),
    filterAliases: input.filterAliases && ownMap(input.filterAliases),
  } as ResourceDefinition;
  for (const [name, f] of Object.entries(def.fields)) nameField(name, f);
  DEFINED.set(objectType(def), def);
  return def;
}

/** Gives a declared field its name and default columns (`<name>`, `<name>_id`, `<name>_type`). */
export function nameField<F extends Field>(name: string, f: F): F {
  f.name = name;
  if (f.kind === 'scalar' && !f.column) f.column = name;
  if (f.kind === 'fk' && !f.column) f.column = `${name}_id`;
  if (f.kind === 'gfk') {
    if (!f.typeColumn) f.typeColumn = `${name}_type`;
    if (!f.idColumn) f.idColumn = `${name}_id`;
    f.typeKey ??= `${name}_type`;
    f.idKey ??= `${name}_id`;
  }
  return f;
}

/** Every model defined in this process, by object type (whatever the registry of an app installs). */
const DEFINED = new Map<string, ResourceDefinition>();

/**
 * A model named by its object type, for a field's target: `field.foreignKey(model('ipam.prefix'))`
 * lets two models point at each other without importing each other.
 */
export function model(type: string): () => ResourceDefinition {
  return () => {
    const def = DEFINED.get(type);
    if (!def) throw new Error(`No model ${type} is defined`);
    return def;
  };
}

/** A copy of a record without a prototype: only its own keys name anything. */
export function ownMap<T>(record: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, record);
}

/** The app-relative path of a model's list endpoint: `/api/<app>/<slug>/` (`/api/plugins/<base_url>/<slug>/` for a plugin's). */
export const listPath = (def: ResourceDefinition) => `/api/${def.apiBase ?? def.app}/${def.slug}/`;

/** Field lists by definition, see fieldList. */
const FIELD_LISTS = new WeakMap<ResourceDefinition, readonly Field[]>();

/**
 * The model's fields in order, made once: `Object.values` of its fields (a map without a
 * prototype, which V8 keeps as a dictionary) was ~1.5 µs each time, and a bulk write of 1,000
 * objects asks for it per object. The registry forgets the list when an extension adds a field.
 */
export function fieldList(def: ResourceDefinition): readonly Field[] {
  let list = FIELD_LISTS.get(def);
  if (!list) FIELD_LISTS.set(def, (list = Object.values(def.fields)));
  return list;
}

/** Drops the model's field list: its fields changed. */
export const forgetFieldList = (def: ResourceDefinition): void => void FIELD_LISTS.delete(def);

/** Object types by definition: asked for several times per represented object, built once. */
const OBJECT_TYPES = new WeakMap<ResourceDefinition, string>();

export const objectType = (def: ResourceDefinition): string => {
  let type = OBJECT_TYPES.get(def);
  if (type === undefined) {
    type = `${def.appLabel ?? def.app}.${def.model}`;
    OBJECT_TYPES.set(def, type);
  }
  return type;
};

export type ApiWrite = 'create' | 'update' | 'delete';
const ALL_WRITES: readonly ApiWrite[] = ['create', 'update', 'delete'];

/** Whether the API offers a write on a model (`writes`, else all of them unless `readOnly`). */
export function offers(def: Pick<ResourceDefinition, 'readOnly' | 'writes'>, write: ApiWrite): boolean {
  return (def.writes ?? (def.readOnly ? [] : ALL_WRITES)).includes(write);
}

/** The Allow header of a model's list or detail URL, in DRF's order. */
export function allowHeader(def: Pick<ResourceDefinition, 'readOnly' | 'writes'>, detail: boolean): string {
  const methods = ['GET'];
  if (!detail && offers(def, 'create')) methods.push('POST');
  if (offers(def, 'update')) methods.push('PUT', 'PATCH');
  if (offers(def, 'delete')) methods.push('DELETE');
  return [...methods, 'HEAD', 'OPTIONS'].join(', ');
}
