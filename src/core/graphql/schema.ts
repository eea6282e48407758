import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFieldConfig,
  GraphQLFieldConfigMap,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLOutputType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { objectType, ResourceDefinition } from '../resource/definition';
import type { GraphqlPart, GraphqlScalar, ModelExtension } from '../resource/extension';
import type { Field, ScalarField } from '../resource/fields';
import type { ResourceRegistry } from '../resource/registry';
import { readScalar } from '../resource/serialize/values';
import { formatDateTime } from '../resource/query/values';
import { filterArgs, PAGE_ARGS } from './args';
import type { GraphqlLoader, ListArgs, Node } from './loader';
import { choiceValues, enumName, GRAPHQL_NAME, listFieldName, singleFieldName, typeName } from './names';
import { BigIntegerScalar, isBigInteger, JsonScalar } from './scalars';

/** What resolvers get: the request's loader. */
export interface GraphqlContext {
  loader: GraphqlLoader;
}

export interface ExtensionPart {
  ext: ModelExtension;
  index: number;
  part: GraphqlPart;
}

export interface SchemaInput {
  registry: ResourceRegistry;
  /** Whether a field is shown in the request's API version. */
  readable: (f: Field) => boolean;
  /** The GraphQL parts of the extensions each model takes (custom fields by the definitions of the moment). */
  parts: Map<ResourceDefinition, ExtensionPart[]>;
}

type FieldMap = GraphQLFieldConfigMap<Node, GraphqlContext>;

const SCALARS: Record<GraphqlScalar, GraphQLOutputType> = { String: GraphQLString, Int: GraphQLInt, Float: GraphQLFloat, Boolean: GraphQLBoolean, JSON: JsonScalar };

const ContentTypeType = new GraphQLObjectType<string>({
  name: 'ContentTypeType',
  fields: {
    app_label: { type: GraphQLString, resolve: (ct) => ct.split('.')[0] },
    model: { type: GraphQLString, resolve: (ct) => ct.split('.').slice(1).join('.') },
  },
});

/**
 * The GraphQL schema derived from the registry (the reference's generated schema): per model an
 * object type (`DeviceType`) with its fields, foreign keys as nested objects, many-to-many and
 * reverse relations as nested lists taking the target's filters, the extensions' fields
 * (`cf_<key>`, `_custom_field_data`, `config_context`); a list field (`devices`) taking the
 * model's filters with `limit` and `offset`, and a single field (`device(id:)`). Resolvers read
 * through the request's `GraphqlLoader`, so everything is scoped and batched.
 */
export function buildSchema(input: SchemaInput): GraphQLSchema {
  const { registry, readable, parts } = input;
  const defs = registry.all();
  const types = new Map<ResourceDefinition, GraphQLObjectType<Node, GraphqlContext>>();
  const taken = new Set<string>(['ContentTypeType', 'JSON', 'BigInteger', 'Query']);
  const unique = (name: string, def: ResourceDefinition) => {
    let n = name;
    if (taken.has(n)) n = `${(def.appLabel ?? def.app).replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase())}${name}`;
    taken.add(n);
    return n;
  };
  const argsCache = new Map<ResourceDefinition, ReturnType<typeof filterArgs>>();
  const argsOf = (def: ResourceDefinition) => {
    let a = argsCache.get(def);
    if (!a) {
      const extra = (parts.get(def) ?? []).flatMap((p) => p.part.filters ?? []);
      argsCache.set(def, (a = { ...filterArgs(registry, def, readable, extra), ...PAGE_ARGS }));
    }
    return a;
  };
  for (const def of defs) {
    types.set(
      def,
      new GraphQLObjectType<Node, GraphqlContext>({
        name: unique(typeName(def), def),
        description: def.description,
        fields: () => objectFields(def),
      }),
    );
  }

  function objectFields(def: ResourceDefinition): FieldMap {
    const out: FieldMap = {};
    const add = (name: string, config: GraphQLFieldConfig<Node, GraphqlContext>) => {
      if (GRAPHQL_NAME.test(name) && !name.startsWith('__') && !(name in out)) out[name] = config;
    };
    add('id', { type: new GraphQLNonNull(GraphQLID), resolve: (n) => n.id });
    add('display', { type: GraphQLString, resolve: async (n, _a, c) => (await c.loader.representation(n)).display ?? null });
    add('url', { type: GraphQLString, resolve: (n, _a, c) => c.loader.ctx.detailUrl(def, n.id) });
    for (const f of Object.values(def.fields)) {
      if (f.writeOnly || !readable(f)) continue;
      const config = fieldConfig(def, f);
      if (config) add(f.name, config);
      if (f.kind === 'gfk') {
        add(f.typeKey!, { type: GraphQLString, resolve: (n) => n.row[f.typeColumn] ?? null });
        add(f.idKey!, { type: GraphQLString, resolve: (n) => (n.row[f.idColumn] ? String(n.row[f.idColumn]) : null) });
      }
    }
    add('created', { type: GraphQLString, resolve: (n) => formatDateTime(n.row.created) });
    add('last_updated', { type: GraphQLString, resolve: (n) => formatDateTime(n.row.last_updated) });
    for (const rel of registry.relatedSets(def)) {
      const type = types.get(rel.def);
      if (!type || rel.field.writeOnly) continue;
      add(rel.name, { type: new GraphQLList(type), args: argsOf(rel.def), resolve: (n, a, c) => c.loader.reverse(rel, n, a as ListArgs) });
    }
    for (const { ext, index, part } of parts.get(def) ?? []) {
      for (const [name, key] of Object.entries(part.fields)) {
        add(name, { type: SCALARS[key.type], description: key.description, resolve: async (n, _a, c) => key.read(await c.loader.extension(n, ext, index)) ?? null });
      }
    }
    return out;
  }

  const enums = new Map<string, { type: GraphQLEnumType; byValue: Map<string, string> }>();
  function choiceEnum(def: ResourceDefinition, f: ScalarField) {
    const name = enumName(def, f.name);
    let e = enums.get(name);
    if (!e) {
      const values = choiceValues(f.choices!);
      const byValue = new Map([...values].map(([n, v]) => [String(v), n]));
      e = { type: new GraphQLEnumType({ name: taken.has(name) ? `${name}_${objectType(def).replace('.', '_')}` : name, values: Object.fromEntries([...values.keys()].map((n) => [n, { value: n }])) }), byValue };
      taken.add(e.type.name);
      enums.set(name, e);
    }
    return e;
  }

  function fieldConfig(def: ResourceDefinition, f: Field): GraphQLFieldConfig<Node, GraphqlContext> | null {
    switch (f.kind) {
      case 'scalar': {
        if (f.choices && !f.listOf) {
          const e = choiceEnum(def, f);
          if (!e.byValue.size) return null;
          return { type: e.type, description: f.help, resolve: (n) => (n.row[f.column] === null || n.row[f.column] === undefined ? null : (e.byValue.get(String(n.row[f.column])) ?? null)) };
        }
        return { type: scalarType(f), description: f.help, resolve: (n) => readScalar(f, n.row[f.column]) };
      }
      case 'fk': {
        const target = f.target();
        const type = types.get(target);
        if (!type) return null;
        return { type, description: f.help, resolve: (n, _a, c) => (n.row[f.column] === null || n.row[f.column] === undefined ? null : c.loader.related(target, String(n.row[f.column]))) };
      }
      case 'm2m': {
        const target = f.target();
        const type = types.get(target);
        if (!type) return null;
        return { type: new GraphQLList(type), description: f.help, args: argsOf(target), resolve: (n, a, c) => c.loader.many(def, f, n, a as ListArgs) };
      }
      case 'contentTypes':
        return { type: new GraphQLList(ContentTypeType), description: f.help, resolve: (n, _a, c) => c.loader.contentTypes(f, n) };
      case 'computed':
        if (f.reverse) return null;
        return { type: schemaType(f.schema), description: f.help, resolve: (n, _a, c) => (f.load ? c.loader.computed(n, f) : f.read(n.row, c.loader.ctx)) };
      case 'composite':
        return { type: schemaType(f.schema), description: f.help, resolve: (n, _a, c) => f.read(n.row, c.loader.ctx) };
      default:
        return null;
    }
  }

  const query: FieldMap = {};
  for (const def of defs) {
    const type = types.get(def)!;
    const list = listFieldName(def);
    const single = singleFieldName(def);
    if (GRAPHQL_NAME.test(list) && !(list in query)) query[list] = { type: new GraphQLList(type), args: argsOf(def), resolve: (_r, a, c) => c.loader.list(def, a as ListArgs) };
    if (GRAPHQL_NAME.test(single) && single !== list && !(single in query)) {
      query[single] = { type, args: { id: { type: new GraphQLNonNull(GraphQLID) } }, resolve: (_r, a, c) => c.loader.single(def, String(a.id)) };
    }
  }
  return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: query }) });
}

function scalarType(f: ScalarField): GraphQLOutputType {
  if (f.listOf) return new GraphQLList(f.listOf.type === 'integer' ? GraphQLInt : GraphQLString);
  switch (f.type) {
    case 'boolean':
      return GraphQLBoolean;
    case 'integer':
      return isBigInteger(f) ? BigIntegerScalar : GraphQLInt;
    case 'json':
      return JsonScalar;
    default:
      return GraphQLString;
  }
}

/** A computed or composite field's type, from its OpenAPI schema. */
function schemaType(schema: Record<string, unknown>): GraphQLOutputType {
  if (schema.type === 'string') return GraphQLString;
  if (schema.type === 'boolean') return GraphQLBoolean;
  return JsonScalar;
}
