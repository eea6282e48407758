import { GraphQLBoolean, GraphQLFieldConfigArgumentMap, GraphQLFloat, GraphQLInputType, GraphQLInt, GraphQLList, GraphQLString } from 'graphql';
import type { ResourceDefinition } from '../resource/definition';
import type { CustomFilter } from '../resource/definition';
import type { Field } from '../resource/fields';
import { lookupsFor, NUMBER_LOOKUPS } from '../resource/query/lookups';
import type { ResourceRegistry } from '../resource/registry';
import { GRAPHQL_NAME } from './names';
import { BigIntegerScalar, isBigInteger } from './scalars';

const LIST_OF_STRINGS = new GraphQLList(GraphQLString);
const LIST_OF_INTS = new GraphQLList(GraphQLInt);
const LIST_OF_BIG = new GraphQLList(BigIntegerScalar);
const LIST_OF_FLOATS = new GraphQLList(GraphQLFloat);

/** The argument type of one filter of a field and lookup, as the reference types filter arguments. */
function argType(f: Field, lookup: string): GraphQLInputType {
  if (lookup === 'isnull') return GraphQLBoolean;
  if (f.kind !== 'scalar' || f.choices) return LIST_OF_STRINGS;
  if (f.type === 'boolean') return GraphQLBoolean;
  if (f.type === 'integer' && (NUMBER_LOOKUPS.includes(lookup) || lookup === '') && lookup !== 'n') return isBigInteger(f) ? LIST_OF_BIG : LIST_OF_INTS;
  if (f.type === 'decimal' && lookup !== 'n') return LIST_OF_FLOATS;
  return LIST_OF_STRINGS;
}

/**
 * A model's filters as GraphQL arguments: what the REST query string takes (every filterable
 * field with its lookups, `created` and `last_updated`, the model's own filters, aliases, `has_*`,
 * `q`, and the extensions' filters such as `cf_<key>`), each a list unless it is a boolean; `type`
 * is `_type`, as in the reference. The filter compiler compiles them exactly as the query string.
 */
export function filterArgs(registry: ResourceRegistry, def: ResourceDefinition, readable: (f: Field) => boolean, extra: string[]): GraphQLFieldConfigArgumentMap {
  const args: GraphQLFieldConfigArgumentMap = {};
  const add = (name: string, type: GraphQLInputType) => {
    const key = name === 'type' ? '_type' : name;
    if (GRAPHQL_NAME.test(key) && !(key in args) && key !== 'limit' && key !== 'offset') args[key] = { type };
  };
  add('id', LIST_OF_STRINGS);
  add('id__n', LIST_OF_STRINGS);
  add('q', GraphQLString);
  for (const f of Object.values(def.fields)) {
    if (f.filter === false || f.writeOnly || !['scalar', 'fk', 'm2m', 'contentTypes'].includes(f.kind) || !readable(f)) continue;
    for (const lookup of lookupsFor(f, 'query')) add(lookup ? `${f.name}__${lookup}` : f.name, argType(f, lookup));
  }
  for (const ts of ['created', 'last_updated']) for (const lookup of ['', ...NUMBER_LOOKUPS]) add(lookup ? `${ts}__${lookup}` : ts, LIST_OF_STRINGS);
  for (const [name, filter] of Object.entries(def.filters ?? {}) as [string, CustomFilter][]) {
    const type = filter.boolean ? GraphQLBoolean : LIST_OF_STRINGS;
    add(name, type);
    for (const lookup of filter.lookups ?? []) if (lookup) add(`${name}__${lookup}`, type);
  }
  for (const alias of Object.keys(def.filterAliases ?? {})) add(alias, LIST_OF_STRINGS);
  for (const rel of registry.relatedSets(def)) add(`has_${rel.name}`, GraphQLBoolean);
  for (const f of Object.values(def.fields)) if ((f.kind === 'm2m' || f.kind === 'contentTypes') && f.filter !== false) add(`has_${f.name}`, GraphQLBoolean);
  for (const name of extra) add(name, LIST_OF_STRINGS);
  return args;
}

/** `limit` and `offset` of every list. */
export const PAGE_ARGS: GraphQLFieldConfigArgumentMap = { limit: { type: GraphQLInt }, offset: { type: GraphQLInt } };
