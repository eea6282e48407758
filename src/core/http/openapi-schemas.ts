import { objectType, offers, ResourceDefinition } from '../resource/definition';
import { Field, fieldInVersion, fieldReadable, fieldRequired, OpenApiSchema } from '../resource/fields';
import type { ResourceRegistry } from '../resource/registry';
import { writable } from '../resource/serialize/input';

type Schema = OpenApiSchema;

/** A reference to a component schema. */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** A related object as a depth-0 representation shows it. */
const RELATED = { type: 'object', properties: { id: { type: 'string', format: 'uuid' }, object_type: { type: 'string' }, url: { type: 'string', format: 'uri' } } };

/** A related object as a write names it: its UUID, its URL or natural key, or attributes that identify it. */
function writeRef(target: ResourceDefinition): Schema {
  return {
    description: `A ${target.verboseName} (${objectType(target)}): its UUID, URL or natural key, or an object of attributes that identify one`,
    anyOf: [{ type: 'string', format: 'uuid' }, { type: 'string' }, { type: 'object', additionalProperties: true }],
  };
}

const nullable = (s: Schema, n: boolean | undefined): Schema => (n ? { ...s, nullable: true } : s);

/** A text choice that may be left blank (stored as "", shown as null). */
const blankChoice = (f: Field & { kind: 'scalar' }) => !f.required && f.type === 'string';

const SCALARS: Record<string, Schema> = {
  string: { type: 'string' },
  text: { type: 'string' },
  uuid: { type: 'string', format: 'uuid' },
  integer: { type: 'integer' },
  decimal: { type: 'string', format: 'decimal' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  datetime: { type: 'string', format: 'date-time' },
  json: {},
};

/** A field as a representation shows it. */
function readSchema(f: Field): Schema {
  switch (f.kind) {
    case 'scalar': {
      if (f.choices) {
        const values = f.choices.map((c) => c[0]);
        // A blank choice reads as null.
        return nullable({ type: 'object', properties: { value: { type: typeof values[0] === 'number' ? 'integer' : 'string', enum: values }, label: { type: 'string' } } }, f.nullable || blankChoice(f));
      }
      return withLimits(f, f.listOf ? { type: 'array', items: f.listOf.choices ? { enum: f.listOf.choices.map((c) => c[0]) } : { type: f.listOf.type } } : { ...SCALARS[f.type] });
    }
    case 'fk':
      return nullable(RELATED, f.nullable);
    case 'gfk':
      return nullable(RELATED, true);
    case 'm2m':
      return f.single ? nullable(RELATED, true) : { type: 'array', items: RELATED };
    case 'contentTypes':
      return { type: 'array', items: { type: 'string' } };
    case 'count':
      return { type: 'integer', readOnly: true };
    case 'computed':
    case 'composite':
      return f.schema;
  }
}

function withLimits(f: Field & { kind: 'scalar' }, s: Schema): Schema {
  if (f.maxLength && !f.listOf) s.maxLength = f.maxLength;
  if (f.minValue !== undefined) s.minimum = f.minValue;
  if (f.maxValue !== undefined) s.maximum = f.maxValue;
  if (f.nullable) s.nullable = true;
  if (f.help) s.description = f.help;
  return s;
}

/** A field as a write takes it. */
function writeSchema(f: Field): Schema {
  switch (f.kind) {
    case 'fk':
      return nullable(writeRef(f.target()), f.nullable);
    case 'm2m':
      return f.single ? nullable(writeRef(f.target()), true) : { type: 'array', items: writeRef(f.target()) };
    case 'scalar':
      if (f.choices) {
        // A choice is written as its value; one that may be blank also as "" (or null, as it reads).
        const values: unknown[] = f.choices.map((c) => c[0]);
        if (blankChoice(f) && !values.includes('')) values.push('');
        return nullable({ type: typeof values[0] === 'number' ? 'integer' : 'string', enum: values }, f.nullable || blankChoice(f));
      }
      return readSchema(f);
    default: {
      const s = { ...readSchema(f) };
      delete s.readOnly;
      return s;
    }
  }
}

/**
 * The components of one model's schemas, named as Nautobot's (drf-spectacular's) schema names
 * them: the representation `<Name>` (the serializer's name without "Serializer"), the request
 * bodies `<Name>Request` (`Writable<Name>Request` where a field is a choice, written as its
 * value and read as `{value, label}`), `Patched...` for PATCH (nothing required),
 * `BulkWritable<Name>Request` and `PatchedBulkWritable<Name>Request` for the list's PUT and PATCH
 * (each object names its `id`), and the list page `Paginated<Name>List`.
 */
export interface ModelSchemaNames {
  read: string;
  request: string;
  patched: string;
  bulk: string;
  patchedBulk: string;
  page: string;
}

export function schemaNames(name: string, def: ResourceDefinition, version: string): ModelSchemaNames {
  const asymmetric = Object.values(def.fields).some((f) => f.kind === 'scalar' && f.choices && writable(f) && fieldInVersion(f, version));
  const request = `${asymmetric ? 'Writable' : ''}${name}Request`;
  return { read: name, request, patched: `Patched${request}`, bulk: `BulkWritable${name}Request`, patchedBulk: `PatchedBulkWritable${name}Request`, page: `Paginated${name}List` };
}

/** Every model's component name: its reference class name (Nautobot's), with the app's name before it where two apps share one. */
export function componentNames(registry: ResourceRegistry): Map<ResourceDefinition, string> {
  const all = registry.all();
  const taken = new Map<string, number>();
  for (const d of all) taken.set(d.className, (taken.get(d.className) ?? 0) + 1);
  const pascal = (s: string) => s.replace(/(^|[-_/])(\w)/g, (_, __, c: string) => c.toUpperCase());
  return new Map(all.map((d) => [d, taken.get(d.className)! > 1 ? `${pascal(d.apiBase ?? d.app)}${d.className}` : d.className]));
}

/** The components of one model in one API version (only the request bodies of the writes it offers). */
export function modelSchemas(registry: ResourceRegistry, def: ResourceDefinition, names: ModelSchemaNames, version: string): Record<string, Schema> {
  const read: Record<string, Schema> = {
    id: { type: 'string', format: 'uuid', readOnly: true },
    object_type: { type: 'string', readOnly: true, example: objectType(def) },
    display: { type: 'string', readOnly: true, description: 'Human friendly display value' },
    url: { type: 'string', format: 'uri', readOnly: true },
    natural_slug: { type: 'string', readOnly: true },
  };
  if (def.tree) read.tree_depth = { type: 'integer', nullable: true, readOnly: true };
  const write: Record<string, Schema> = { id: { type: 'string', format: 'uuid', description: 'Optional on create: the new object takes this UUID' } };
  const required: string[] = [];
  for (const f of Object.values(def.fields)) {
    if (!fieldInVersion(f, version)) continue;
    if (!f.writeOnly && fieldReadable(f, version)) {
      if (f.kind === 'gfk') {
        read[f.typeKey!] = { type: 'string', nullable: true, description: 'Object type (`app_label.model`)' };
        if (f.showId !== false) read[f.idKey!] = { type: 'string', format: 'uuid', nullable: true };
      }
      read[f.name] = f.readOnly || !writable(f) ? { ...readSchema(f), readOnly: true } : readSchema(f);
    }
    if (!writable(f)) continue;
    // A foreign key with a default (a prefix's namespace) may be left out of a create, not of a
    // PUT: the one schema of both says what both take.
    const mustGive = fieldRequired(f, version);
    if (f.kind === 'gfk') {
      write[f.typeKey!] = { type: 'string', description: 'Object type (`app_label.model`)' };
      write[f.idKey!] = { type: 'string', format: 'uuid' };
      if (mustGive) required.push(f.typeKey!, f.idKey!);
    } else {
      write[f.name] = writeSchema(f);
      if (f.help && !write[f.name].description) write[f.name] = { ...write[f.name], description: f.help };
      if (mustGive) required.push(f.name);
    }
  }
  read.created = { type: 'string', format: 'date-time', nullable: true, readOnly: true };
  read.last_updated = { type: 'string', format: 'date-time', nullable: true, readOnly: true };
  for (const e of registry.extensionsOf(def)) {
    for (const [key, k] of Object.entries(e.represent?.keys ?? {})) {
      read[key] = k.schema;
      if (k.writable) write[key] = k.schema;
    }
  }
  const out: Record<string, Schema> = {
    [names.read]: { type: 'object', properties: read },
    [names.page]: {
      type: 'object',
      required: ['count', 'results'],
      properties: {
        count: { type: 'integer', example: 123 },
        next: { type: 'string', format: 'uri', nullable: true },
        previous: { type: 'string', format: 'uri', nullable: true },
        results: { type: 'array', items: ref(names.read) },
      },
    },
  };
  const withId = { ...write, id: { type: 'string', format: 'uuid' } };
  if (offers(def, 'create') || offers(def, 'update')) out[names.request] = { type: 'object', properties: write, ...(required.length ? { required } : {}) };
  if (offers(def, 'update')) {
    out[names.patched] = { type: 'object', properties: write };
    out[names.bulk] = { type: 'object', properties: withId, required: ['id', ...required] };
    out[names.patchedBulk] = { type: 'object', properties: withId, required: ['id'] };
  }
  return out;
}

/** Components every document has: a list delete's items, and the two shapes of an error. */
export const COMMON_SCHEMAS: Record<string, Schema> = {
  BulkOperationRequest: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] },
  ErrorDetail: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] },
  BadRequest: {
    description:
      'What was wrong: for a body, messages by field (`non_field_errors`, `__all__`: the object as a whole), a list of such objects for a list body; for a parameter, `{"detail": "..."}`',
    example: { name: ['This field is required.'] },
  },
};
