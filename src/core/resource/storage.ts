import type { ColumnType } from '../../database/dialect';
import type { ColumnSchema, ForeignKeySchema, IndexSchema, OnDelete, StorageType, TableSchema } from '../../database/schema/schema';
import type { ResourceDefinition } from './definition';
import type { ContentTypesField, Field, ForeignKeyField, ManyToManyField, ScalarField } from './fields';

/** A content type (`app_label.model`) in a column: gfk types, content-type links, tagged items. */
export const CONTENT_TYPE_LENGTH = 100;
const INT_MAX = 2147483647;

const ON_DELETE: Record<ForeignKeyField['onDelete'], OnDelete> = { protect: 'restrict', cascade: 'cascade', setNull: 'setNull' };

/** Storage type of a scalar field's column: declared, or from its kind (an integer past 32 bits is a bigint). */
export function scalarStorage(f: ScalarField): StorageType {
  if (f.storage) return f.storage;
  if (f.type === 'integer' && ((f.maxValue ?? 0) > INT_MAX || (f.minValue ?? 0) < -INT_MAX - 1)) return 'bigint';
  return f.type === 'uuid' ? 'uuid' : f.type;
}

/** The column of a scalar field, with its storage facts. */
function scalarColumn(def: ResourceDefinition, f: ScalarField): ColumnSchema {
  const type = scalarStorage(f);
  const c: ColumnSchema = { name: f.column, type, nullable: !!f.nullable };
  if (type === 'string') {
    if (!f.maxLength) throw new Error(`${def.app}.${def.model}.${f.name}: a string field declares its maxLength`);
    c.length = f.dbLength ?? f.maxLength;
  }
  if (type === 'decimal') {
    if (!f.maxDigits || f.decimalPlaces === undefined) throw new Error(`${def.app}.${def.model}.${f.name}: a decimal field declares maxDigits and decimalPlaces`);
    Object.assign(c, { precision: f.maxDigits, scale: f.decimalPlaces });
  }
  return c;
}

/** Columns every model's table has, first. */
const STANDARD: ColumnSchema[] = [
  { name: 'id', type: 'uuid', nullable: false },
  { name: 'created', type: 'datetime', nullable: false },
  { name: 'last_updated', type: 'datetime', nullable: false },
];

/**
 * The stored columns of a model, in order: the standard ones, each field's, then the
 * definition's own `columns` (the parts of composite fields, natural sort keys, and what the
 * extensions it takes store: custom field data).
 */
export function modelColumns(def: ResourceDefinition): ColumnSchema[] {
  let cols = columnsOfModel.get(def);
  if (!cols) columnsOfModel.set(def, (cols = deriveColumns(def)));
  return cols;
}

const columnsOfModel = new WeakMap<ResourceDefinition, ColumnSchema[]>();

function deriveColumns(def: ResourceDefinition): ColumnSchema[] {
  const out = new Map<string, ColumnSchema>(STANDARD.map((c) => [c.name, c]));
  for (const f of Object.values(def.fields)) {
    if (f.kind === 'scalar') out.set(f.column, scalarColumn(def, f));
    else if (f.kind === 'fk') out.set(f.column, { name: f.column, type: 'uuid', nullable: !!f.nullable });
    else if (f.kind === 'gfk') {
      out.set(f.typeColumn, { name: f.typeColumn, type: 'string', length: CONTENT_TYPE_LENGTH, nullable: !!f.nullable });
      out.set(f.idColumn, { name: f.idColumn, type: 'uuid', nullable: !!f.nullable });
    }
  }
  for (const [name, spec] of Object.entries(def.columns ?? {})) out.set(name, { name, ...spec });
  for (const f of Object.values(def.fields)) {
    const cols = f.kind === 'composite' || f.kind === 'computed' ? f.columns : [];
    for (const c of cols) if (!out.has(c)) throw new Error(`${def.app}.${def.model}.${f.name}: column ${c} is not declared (declare it under columns)`);
  }
  return [...out.values()];
}

/** Column names of a model, in the order of `modelColumns` (worked out once per definition; not to be changed). */
export function storedColumns(def: ResourceDefinition): readonly string[] {
  let names = namesOfModel.get(def);
  if (!names) namesOfModel.set(def, (names = Object.freeze(modelColumns(def).map((c) => c.name))));
  return names;
}

const namesOfModel = new WeakMap<ResourceDefinition, readonly string[]>();

/**
 * How the engine binds each stored column's values (dialect.toDb / typedParam); worked out once
 * per definition (a write of 1,000 objects asked for it once per object), not to be changed.
 */
export function columnTypes(def: ResourceDefinition): Readonly<Record<string, ColumnType>> {
  let types = typesOfModel.get(def);
  if (!types) typesOfModel.set(def, (types = Object.freeze(Object.fromEntries(modelColumns(def).map((c) => [c.name, c.type])))));
  return types;
}

const typesOfModel = new WeakMap<ResourceDefinition, Readonly<Record<string, ColumnType>>>();

/** Is an index with these leading columns already there (a key that starts with them)? */
const covered = (indexes: IndexSchema[], pk: string[], cols: string[]) =>
  [pk, ...indexes.map((i) => i.columns)].some((have) => cols.every((c, i) => have[i] === c));

/**
 * A model's table as its definition declares it: columns, primary key, unique keys (unique
 * fields, unique-together sets), the declared indexes, and an index for each foreign key that
 * no key already leads with; foreign keys with the fields' on-delete rules.
 */
export function modelTable(def: ResourceDefinition): TableSchema {
  const columns = modelColumns(def);
  const indexes: IndexSchema[] = [];
  const add = (cols: string[], unique: boolean) => {
    if (!indexes.some((i) => i.unique === unique && i.columns.join() === cols.join())) indexes.push({ columns: cols, unique });
  };
  for (const f of Object.values(def.fields)) if (f.kind === 'scalar' && f.unique) add([f.column], true);
  for (const u of def.uniqueTogether ?? []) {
    if (u.db === false) continue;
    add(u.db ?? u.columns ?? u.fields.flatMap((n) => columnsOf(def, n)), true);
  }
  for (const i of def.indexes ?? []) Array.isArray(i) ? add(i, false) : add(i.columns, !!i.unique);
  for (const f of Object.values(def.fields)) if (f.kind === 'scalar' && f.index) add([f.column], false);
  const foreignKeys: ForeignKeySchema[] = [];
  for (const f of Object.values(def.fields)) {
    if (f.kind === 'gfk' && f.index !== false && !covered(indexes, ['id'], [f.typeColumn, f.idColumn])) add([f.typeColumn, f.idColumn], false);
    if (f.kind !== 'fk' || f.dbForeignKey === false) continue;
    foreignKeys.push({ column: f.column, table: f.target().table, onDelete: f.dbOnDelete ?? ON_DELETE[f.onDelete] });
    if (f.index !== false && !covered(indexes, ['id'], [f.column])) add([f.column], false);
  }
  return { name: def.table, columns, primaryKey: ['id'], indexes, foreignKeys, watched: def.watched };
}

/** The stored columns of one field (a foreign key's id column, a composite's parts). */
export function columnsOf(def: ResourceDefinition, name: string): string[] {
  const f = def.fields[name];
  if (!f) return [name];
  if (f.kind === 'fk' || f.kind === 'scalar') return [f.column];
  if (f.kind === 'composite') return f.columns;
  if (f.kind === 'gfk') return [f.typeColumn, f.idColumn];
  return [name];
}

/** The link table of a many-to-many field that no model owns (a through model is a model of its own). */
export function throughTable(def: ResourceDefinition, f: ManyToManyField | ContentTypesField): TableSchema {
  const source: ColumnSchema = { name: f.through.source, type: 'uuid', nullable: false };
  if (f.kind === 'contentTypes') {
    return {
      name: f.through.table,
      columns: [source, { name: 'content_type', type: 'string', length: CONTENT_TYPE_LENGTH, nullable: false }],
      primaryKey: [f.through.source, 'content_type'],
      indexes: [{ columns: ['content_type'], unique: false }],
      foreignKeys: [{ column: f.through.source, table: def.table, onDelete: 'cascade' }],
      watched: def.watched,
    };
  }
  const target = f.target();
  return {
    name: f.through.table,
    columns: [source, { name: f.through.target, type: 'uuid', nullable: false }],
    primaryKey: [f.through.source, f.through.target],
    indexes: [{ columns: [f.through.target], unique: false }],
    foreignKeys: [
      { column: f.through.source, table: def.table, onDelete: 'cascade' },
      { column: f.through.target, table: target.table, onDelete: 'cascade' },
    ],
    watched: def.watched,
  };
}

/** Fields whose links live in a table of their own, derived here (not a discriminated shared table such as tagged items). */
export const ownsThroughTable = (f: Field): f is ManyToManyField | ContentTypesField =>
  f.kind === 'contentTypes' || (f.kind === 'm2m' && !f.through.discriminator);
