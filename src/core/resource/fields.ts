import type { ColumnType } from '../../database/dialect';
import type { StorageType } from '../../database/schema/schema';
import type { Executor, Row } from '../../database/db';
import type { ResourceDefinition } from './definition';
import type { RequestContext } from '../context';

export type Choices = readonly (readonly [value: string | number, label: string])[];
export type Constraint = Record<string, unknown>;
export type VersionRange = { min?: string; max?: string };

/** Compares API versions as numbers ("2.10" > "2.4"). */
export function compareVersions(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am - bm || an - bn;
}

/** Is an API version within a range (both ends included; no range: every version)? */
export function inVersions(range: VersionRange | undefined, version: string): boolean {
  if (!range) return true;
  if (range.min && compareVersions(version, range.min) < 0) return false;
  if (range.max && compareVersions(version, range.max) > 0) return false;
  return true;
}

/** Is a field part of an API version (`versions`)? */
export const fieldInVersion = (f: Field, version: string): boolean => inVersions(f.versions, version);

/** Is a field shown on read in an API version (part of it, and in `readVersions`)? */
export const fieldReadable = (f: Field, version: string): boolean => inVersions(f.versions, version) && inVersions(f.readVersions, version);

/** Must a create (or a PUT) give the field in an API version (`required`, or `requiredVersions` naming the version)? */
export const fieldRequired = (f: Field, version: string): boolean => !!f.required || (!!f.requiredVersions && inVersions(f.requiredVersions, version));

interface BaseField {
  /** Filled in by defineResource from the key of the `fields` map. */
  name: string;
  label?: string;
  help?: string;
  readOnly?: boolean;
  writeOnly?: boolean;
  /** Required on create (and PUT). */
  required?: boolean;
  /** API versions in which the field exists. */
  versions?: VersionRange;
  /** Declared filter: true (lookups from the kind), false (not filterable). */
  filter?: boolean;
  /** May be used with ?sort= */
  sortable?: boolean;
  /** Sort by these stored columns (e.g. address bytes for an address shown as text). */
  sortColumns?: string[];
  /** API versions in which the field is shown on read (default: all in which it exists); write-only elsewhere. */
  readVersions?: VersionRange;
  /** API versions in which a create (or PUT) must give the field, where it is not `required` in all. */
  requiredVersions?: VersionRange;
}

export type ScalarType = 'string' | 'text' | 'integer' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'json' | 'uuid';

export interface ScalarField extends BaseField {
  kind: 'scalar';
  type: ScalarType;
  column: string;
  nullable?: boolean;
  /** Strings: the empty string is accepted (default: unless required). */
  blank?: boolean;
  maxLength?: number;
  minValue?: number;
  maxValue?: number;
  maxDigits?: number;
  decimalPlaces?: number;
  default?: unknown | (() => unknown);
  /** A choice field: reads as {value, label}, writes by value. */
  choices?: Choices;
  /**
   * A JSON list of values (the reference's ListField): OPTIONS shows it as `list` with its child's
   * type and choices, which clients (pynautobot's `choices()`) read. `validate` checks the items.
   */
  listOf?: { type: 'integer' | 'string'; choices?: Choices };
  /** Extra validation on the parsed value; returns an error message. */
  validate?: (value: any) => string | undefined;
  /**
   * On create, a value derived from the object's other values when none is given (the reference's
   * AutoSlugField `populate_from`): set before the rules and uniqueness checks see the object.
   */
  populateFrom?: (values: Row) => unknown;
  /** Normalisation applied after parsing (e.g. lower-case). */
  normalize?: (value: any) => any;
  /** Unique across the table; the message names the model and field. */
  unique?: boolean;
  /** Immutable after create. */
  immutable?: string;
  /** The column has an index of its own (filters automation uses). */
  index?: boolean;
  /** Storage type where the kind's is not it (default: from `type`; integers past 32 bits are bigint). */
  storage?: StorageType;
  /** Column length where it differs from the longest value a client may send (a password's hash is longer than the password). */
  dbLength?: number;
}

export interface ForeignKeyField extends BaseField {
  kind: 'fk';
  target: () => ResourceDefinition;
  column: string;
  nullable?: boolean;
  onDelete: 'protect' | 'cascade' | 'setNull';
  /** Filters by this field include the target's descendants (tree models). */
  tree?: boolean;
  /** Restricts which target objects may be assigned (limit_choices_to), in the filter language. */
  limit?: (owner: ResourceDefinition) => Constraint;
  /** Immutable after create: the message given on change. */
  immutable?: string;
  /** The id to use when the field is omitted on create (e.g. the Global namespace). */
  default?: (w: import('./definition').WriteContext) => Promise<string | null>;
  /**
   * Names of target objects that the target's app enables for this model when it first starts
   * (the reference's default statuses of a model); the app decides what it does without them.
   */
  seedNames?: readonly string[];
  /** Name of the reverse relation on the target, for filters (`locations`, `has_locations`); default the owner's slug; `+` for none. */
  relatedName?: string;
  /** Kept by the engine or a hook (a computed parent): a SET NULL by a delete is bookkeeping, not a change by the requester. */
  maintained?: boolean;
  /** false: no index for the column (another key leads with it, or nothing filters by it). */
  index?: boolean;
  /** false: the database has no foreign key for it (the target may be another app's, not installed). */
  dbForeignKey?: boolean;
  /** The database's rule where it differs from `onDelete` (a parent the engine moves before a delete: RESTRICT as a safety net). */
  dbOnDelete?: 'restrict' | 'cascade' | 'setNull';
}

export interface ManyToManyField extends BaseField {
  kind: 'm2m';
  target: () => ResourceDefinition;
  /** `discriminator`: a column holding the owner's object_type (generic through tables such as tags). */
  through: { table: string; source: string; target: string; discriminator?: string };
  /** Writable through this field (otherwise read-only, managed elsewhere). */
  writable?: boolean;
  limit?: (owner: ResourceDefinition) => Constraint;
  /** Repeated filter values AND together (objects having all of them), as for tags. */
  filterAll?: boolean;
  /** Shown and written as one object (or null) instead of a list: a legacy single-valued view of the set. */
  single?: boolean;
  /** Filters by this field include the target's descendants (tree models). */
  tree?: boolean;
  /** Name of the reverse relation on the target, for filters; default the owner's slug; `+` for none. */
  relatedName?: string;
  /** Shown after the timestamps (as the reference shows tags), never as a reference attribute on write. */
  trailing?: boolean;
  /** A CSV column of the targets' names (a hidden one as its id), read back by name: tags. */
  csvNames?: boolean;
}

/** A many-to-many to content types (`app_label.model` strings). */
export interface ContentTypesField extends BaseField {
  kind: 'contentTypes';
  through: { table: string; source: string };
  /** Which models may be listed (a feature name or predicate over definitions). */
  allowed: (def: ResourceDefinition) => boolean;
  /** Several filter values: objects enabled for all of them (default) or for any. */
  filterAny?: boolean;
}

export interface GenericForeignKeyField extends BaseField {
  kind: 'gfk';
  typeColumn: string;
  idColumn: string;
  /** The API keys of the two parts (default `<name>_type`, `<name>_id`; an image attachment's are `content_type`, `object_id`). */
  typeKey?: string;
  idKey?: string;
  nullable?: boolean;
  allowed?: (def: ResourceDefinition) => boolean;
  /** false: no (type, id) index. */
  index?: boolean;
  /** false: the representation shows `<name>_type` and `<name>` but no `<name>_id` (a cable's peer, a path's far end). */
  showId?: boolean;
  /**
   * Nested by depth on root representations only; inside a nested object it stays a reference.
   * For pointers across a graph (a cable's peer, a path's far end): nested everywhere, each level
   * would multiply the objects of a deep response (interface -> peer -> its peer ...).
   */
  rootOnly?: boolean;
  /**
   * Objects pointing here are deleted with their target as by a cascading foreign key: counted
   * in the delete's scope check, their model's `beforeDelete` run (a cable with its interface).
   * Otherwise they are removed with the target as bookkeeping (notes).
   */
  cascade?: boolean;
}

/** A count of other objects pointing here, on root representations only. */
export interface CountField extends BaseField {
  kind: 'count';
  /**
   * object_type of the counted model and the foreign key on it that points here, or a path of
   * foreign keys that ends here (`cluster__location`: virtual machines by their cluster's location).
   */
  model: string;
  via: string;
}

/** A read-only value computed from the row (and context). */
export interface ComputedField extends BaseField {
  kind: 'computed';
  columns: string[];
  schema: OpenApiSchema;
  read: (row: Row, ctx: RequestContext) => unknown;
  /** Shown on nested representations too (default true). */
  nested?: boolean;
  /** Values for a whole batch of rows at once (one statement per page), by id; `read` is then unused. */
  load?: (rows: Row[], ctx: RequestContext, exec: Executor) => Promise<Map<string, unknown>>;
  /**
   * The value is the references to `target`'s rows whose `column` holds this row's id, in the
   * target's default order, within the requester's view (a reverse foreign key): listed by a list
   * page's statement where the dialect can aggregate, else loaded for the batch; `read` is unused.
   */
  reverse?: ReverseKey;
}

/** The rows of `target` whose foreign key `column` points at a row. */
export interface ReverseKey {
  target: () => ResourceDefinition;
  column: string;
}

/**
 * A field stored in several columns with its own parse and read (an IP prefix written as
 * CIDR and stored as network/broadcast/length bytes).
 */
export interface CompositeField extends BaseField {
  kind: 'composite';
  columns: string[];
  schema: OpenApiSchema;
  read: (row: Row, ctx: RequestContext) => unknown;
  /** Returns column values or an error message. */
  parse: (value: unknown) => Record<string, unknown> | string;
  nullable?: boolean;
  immutable?: string;
}

export type Field =
  | ScalarField
  | ForeignKeyField
  | ManyToManyField
  | ContentTypesField
  | GenericForeignKeyField
  | CountField
  | ComputedField
  | CompositeField;

export type OpenApiSchema = Record<string, unknown>;

type Opts<F> = Partial<Omit<F, 'kind' | 'name'>>;

const scalar = (type: ScalarType, o: Opts<ScalarField> = {}): ScalarField => ({
  kind: 'scalar',
  name: '',
  column: '',
  type,
  filter: true,
  sortable: true,
  ...o,
});

export const HEX_COLOR = /^[0-9a-f]{6}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Django's URLValidator, in short: http(s) or ftp(s), a host name with a top-level domain, localhost, an IPv4 or a bracketed IPv6 address, an optional port and path. */
const URL_PATTERN = /^(?:https?|ftps?):\/\/(?:[^\s:@/]+(?::[^\s@/]*)?@)?(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|(?:[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?\.)+[a-z\u00a1-\uffff]{2,63}\.?)(?::\d{1,5})?(?:[/?#][^\s]*)?$/i;

/**
 * The reference's LaxURLField (EnhancedURLValidator): any scheme of its ALLOWED_URL_SCHEMES, and
 * a host that may also be a bare host name (`http://fileserver/ios.bin`), a port of 2-5 digits.
 */
const LAX_URL_SCHEMES = ['file', 'ftp', 'ftps', 'http', 'https', 'irc', 'mailto', 'sftp', 'ssh', 'tel', 'telnet', 'tftp', 'vnc', 'xmpp'];
const LAX_URL_PATTERN = /^([a-z0-9.+-]*):\/\/(?:\S+(?::\S*)?@)?(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?(?:\.[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?)*\.?)(?::\d{2,5})?(?:[/?#][^\s]*)?$/i;
const laxUrl = (v: string) => {
  const m = LAX_URL_PATTERN.exec(v);
  return !!m && LAX_URL_SCHEMES.includes(m[1].toLowerCase());
};

/** Field helpers used by resource definitions. */
export const field = {
  string: (o: Opts<ScalarField> = {}) => scalar('string', o),
  text: (o: Opts<ScalarField> = {}) => scalar('text', o),
  integer: (o: Opts<ScalarField> = {}) => scalar('integer', o),
  decimal: (o: Opts<ScalarField> = {}) => scalar('decimal', o),
  boolean: (o: Opts<ScalarField> = {}) => scalar('boolean', { default: false, ...o }),
  date: (o: Opts<ScalarField> = {}) => scalar('date', o),
  datetime: (o: Opts<ScalarField> = {}) => scalar('datetime', o),
  json: (o: Opts<ScalarField> = {}) => scalar('json', { filter: false, sortable: false, ...o }),
  uuid: (o: Opts<ScalarField> = {}) => scalar('uuid', o),
  choice: (choices: Choices, o: Opts<ScalarField> = {}) => scalar(typeof choices[0]?.[0] === 'number' ? 'integer' : 'string', { choices, ...o }),
  color: (o: Opts<ScalarField> = {}) =>
    scalar('string', {
      normalize: (v: string) => v.toLowerCase(),
      validate: (v: string) => (v === '' || HEX_COLOR.test(v) ? undefined : 'Enter a valid hexadecimal RGB color code.'),
      ...o,
    }),
  email: (o: Opts<ScalarField> = {}) =>
    scalar('string', { validate: (v: string) => (v === '' || EMAIL.test(v) ? undefined : 'Enter a valid email address.'), ...o }),
  /** A URL (Django's URLField: 200 characters unless given; `lax`: the reference's LaxURLField, more schemes and bare host names); blank is allowed. */
  url: ({ lax, ...o }: Opts<ScalarField> & { lax?: boolean } = {}) =>
    scalar('string', { maxLength: 200, validate: (v: string) => (v === '' || (lax ? laxUrl(v) : URL_PATTERN.test(v)) ? undefined : 'Enter a valid URL.'), ...o }),
  foreignKey: (target: () => ResourceDefinition, o: Opts<ForeignKeyField> = {}): ForeignKeyField => ({
    kind: 'fk',
    name: '',
    column: '',
    target,
    onDelete: o.nullable ? 'setNull' : 'protect',
    filter: true,
    sortable: true,
    ...o,
  }),
  manyToMany: (target: () => ResourceDefinition, through: ManyToManyField['through'], o: Opts<ManyToManyField> = {}): ManyToManyField => ({
    kind: 'm2m',
    name: '',
    target,
    through,
    filter: true,
    ...o,
  }),
  contentTypes: (through: ContentTypesField['through'], allowed: ContentTypesField['allowed'], o: Opts<ContentTypesField> = {}): ContentTypesField => ({
    kind: 'contentTypes',
    name: '',
    through,
    allowed,
    filter: true,
    ...o,
  }),
  genericForeignKey: (o: Opts<GenericForeignKeyField> = {}): GenericForeignKeyField => ({
    kind: 'gfk',
    name: '',
    typeColumn: '',
    idColumn: '',
    filter: true,
    ...o,
  }),
  count: (model: string, via: string, o: Opts<CountField> = {}): CountField => ({
    kind: 'count',
    name: '',
    model,
    via,
    readOnly: true,
    filter: false,
    ...o,
  }),
  computed: (columns: string[], schema: OpenApiSchema, read: ComputedField['read'], o: Opts<ComputedField> = {}): ComputedField => ({
    kind: 'computed',
    name: '',
    columns,
    schema,
    read,
    readOnly: true,
    filter: false,
    ...o,
  }),
  composite: (o: Omit<CompositeField, 'kind' | 'name'>): CompositeField => ({ kind: 'composite', name: '', filter: false, ...o }),
};

/** Storage type of a scalar field's column. */
export function columnType(f: ScalarField): ColumnType {
  switch (f.type) {
    case 'string':
      return 'string';
    case 'text':
      return 'text';
    case 'uuid':
      return 'uuid';
    default:
      return f.type;
  }
}

export const isRelation = (f: Field): f is ForeignKeyField | ManyToManyField | GenericForeignKeyField =>
  f.kind === 'fk' || f.kind === 'm2m' || f.kind === 'gfk';
export const isManyValued = (f: Field) => f.kind === 'm2m' || f.kind === 'contentTypes';
