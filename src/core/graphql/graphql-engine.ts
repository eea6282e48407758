/**
 * The GraphQL engine: graphql-js, the schema derived from the declarations, the loader. Loaded at
 * the first query (graphql.service.ts), not at startup.
 */
import type { Logger } from '@nestjs/common';
import { DocumentNode, execute, GraphQLError, GraphQLSchema, Kind, parse, specifiedRules, validate, valueFromASTUntyped } from 'graphql';
import type { RequestContext } from '../context';
import { objectType, ResourceDefinition } from '../resource/definition';
import { DomainError, ValidationError } from '../resource/errors';
import { Representer } from '../resource/serialize/representer';
import type { ResourceRegistry } from '../resource/registry';
import { GraphqlLoader } from './loader';
import { limitsRule } from './limits';
import { buildSchema, ExtensionPart } from './schema';

/** A query as a client sends it. */
export interface GraphqlRequest {
  query: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** What the endpoint answers: 400 with `errors` for a query that cannot run (as the reference), else 200 with `data` (and `errors`, if some fields failed). */
export interface GraphqlResponse {
  status: number;
  body: { data?: unknown; errors?: FormattedError[] };
}

export interface FormattedError {
  message: string;
  locations?: readonly { line: number; column: number }[];
  path?: readonly (string | number)[];
}

/** Schemas kept, by what they depend on (API version, the extensions' fields such as custom fields). */
const KEPT_SCHEMAS = 8;
/** A query's length in tokens, at most (parsing is bounded before the limits rule sees the document). */
const MAX_TOKENS = 20_000;

/** Schemas kept per registry, by what they depend on (the least recently used dropped first). */
const SCHEMAS = new WeakMap<ResourceRegistry, Map<string, GraphQLSchema>>();

/**
 * The schema as a request sees it (its API version, the custom fields of the moment): derived
 * from the declarations, rebuilt only when what it depends on changes (a custom field added).
 */
export async function graphqlSchema(ctx: RequestContext): Promise<GraphQLSchema> {
  const loader = new GraphqlLoader(ctx, 0);
  const parts = new Map<ResourceDefinition, ExtensionPart[]>();
  for (const def of ctx.registry.all()) parts.set(def, await loader.parts(def));
  const key = JSON.stringify([
    ctx.apiVersion,
    [...parts].filter(([, p]) => p.length).map(([def, list]) => [objectType(def), list.map((p) => [p.index, Object.entries(p.part.fields).map(([k, v]) => `${k}:${v.type}`), p.part.filters ?? []])]),
  ]);
  let kept = SCHEMAS.get(ctx.registry);
  if (!kept) SCHEMAS.set(ctx.registry, (kept = new Map()));
  let schema = kept.get(key);
  if (schema) {
    kept.delete(key);
  } else {
    const representer = new Representer(ctx, ctx.db);
    schema = buildSchema({ registry: ctx.registry, readable: (f) => representer.readable(f), parts });
    if (kept.size >= KEPT_SCHEMAS) kept.delete(kept.keys().next().value!);
  }
  kept.set(key, schema);
  return schema;
}

/** Parses (within MAX_TOKENS) and validates a query: the standard rules and the depth and field limits. The errors; none when it may run. */
export async function checkQuery(ctx: RequestContext, query: string): Promise<{ document?: DocumentNode; errors: readonly GraphQLError[] }> {
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: MAX_TOKENS });
  } catch (e) {
    return { errors: [e instanceof GraphQLError ? e : new GraphQLError(String(e))] };
  }
  const s = ctx.settings;
  const rules = [...specifiedRules, limitsRule({ maxDepth: s.GRAPHQL_MAX_DEPTH, maxFields: s.GRAPHQL_MAX_FIELDS })];
  const errors = validate(await graphqlSchema(ctx), document, rules, { maxErrors: 20 });
  return { document: errors.length ? undefined : document, errors };
}

/**
 * Runs a GraphQL query: checked (`checkQuery`), then executed through a `GraphqlLoader` of the
 * request (scoped, batched reads). Never a 500: an unexpected failure is a GraphQL error with a
 * neutral message, logged.
 */
export async function runQuery(ctx: RequestContext, request: GraphqlRequest, logger: Logger): Promise<GraphqlResponse> {
  const { query, operationName } = request;
  if (typeof query !== 'string' || !query.trim()) return invalid('Must provide query string.');
  let variables = request.variables;
  if (typeof variables === 'string') {
    try {
      variables = variables.trim() ? JSON.parse(variables) : null;
    } catch {
      return invalid('Variables are invalid JSON.');
    }
  }
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return invalid('Variables must be an object.');
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return invalid('The operation name must be a string.');
  const format = (e: GraphQLError) => formatError(e, logger);
  const { document, errors } = await checkQuery(ctx, query);
  if (!document) return { status: 400, body: { errors: errors.map(format) } };
  const result = await execute({
    schema: await graphqlSchema(ctx),
    document,
    variableValues: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: (operationName ?? undefined) as string | undefined,
    contextValue: { loader: new GraphqlLoader(ctx, ctx.settings.GRAPHQL_MAX_OBJECTS) },
  });
  const body: GraphqlResponse['body'] = {};
  if (result.errors?.length) body.errors = result.errors.map(format);
  // No data at all: the request itself was wrong (a variable of the wrong type, an unknown operation).
  if (!('data' in result) || result.data === undefined) return { status: 400, body };
  body.data = result.data;
  return { status: 200, body };
}

/** An error as the reference formats it; one that is not the engine's own says nothing of its cause. */
function formatError(e: GraphQLError, logger: Logger): FormattedError {
  const cause = e.originalError;
  let message = e.message;
  if (cause && !(cause instanceof GraphQLError)) {
    if (cause instanceof ValidationError) message = JSON.stringify(cause.errors);
    else if (!(cause instanceof DomainError) && !(cause instanceof TypeError && /cannot represent/i.test(cause.message))) {
      logger.error(`GraphQL field ${e.path?.join('.') ?? ''} failed: ${cause.stack ?? cause.message}`);
      message = 'The server could not resolve this field.';
    }
  }
  const out: FormattedError = { message };
  if (e.locations) out.locations = e.locations;
  if (e.path) out.path = e.path;
  return out;
}

const invalid = (message: string): GraphqlResponse => ({ status: 400, body: { errors: [{ message }] } });

/** The variables a query's operations declare, each with its default value (or "" without one). */
export function declaredVariables(query: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const d of parse(query).definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const v of d.variableDefinitions ?? []) out[v.variable.name.value] = v.defaultValue ? valueFromASTUntyped(v.defaultValue) : '';
  }
  return out;
}
