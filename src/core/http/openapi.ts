import { Injectable, type INestApplication } from '@nestjs/common';
import { ApiExtension, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { NETKEEL_VERSION } from '../../version';
import { listPath, objectType, offers, ResourceDefinition } from '../resource/definition';
import { fieldInVersion, OpenApiSchema } from '../resource/fields';
import { ResourceRegistry } from '../resource/registry';
import { COMMON_SCHEMAS, componentNames, modelSchemas, ModelSchemaNames, ref, schemaNames } from './openapi-schemas';
import { DEFAULT_VERSION } from './versioning';

type Schema = OpenApiSchema;
type Operation = Record<string, any>;
type PathItem = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const PER_MODEL = 'x-netkeel-per-model';

/**
 * Marks a special controller's routes under `/api/{app}/{model}/...` (a plugin's under
 * `/api/plugins/{app}/{model}/...`) as one sub-resource of every model that takes `feature`:
 * the document lists one path per such model, its GET a page of `model`'s objects and its POST
 * one of them (notes).
 */
export const PerModelRoute = (feature: string, model: string) => ApiExtension(PER_MODEL, { feature, model });

const json = (schema: Schema) => ({ content: { 'application/json': { schema } } });
const answer = (description: string, schema?: Schema) => (schema ? { description, ...json(schema) } : { description });

/** The errors operations may answer (components.responses: each operation lists those that apply). */
const ERRORS: Record<number, [name: string, response: object]> = {
  400: ['BadRequest', answer('The request is invalid (a field, filter or parameter): nothing was changed', ref('BadRequest'))],
  403: ['Forbidden', answer('Not authenticated, or not permitted', ref('ErrorDetail'))],
  404: ['NotFound', answer('No such object (or not one the requester may view)', ref('ErrorDetail'))],
  409: ['Conflict', answer('The change conflicts with other objects (protected by objects that refer to it, or a concurrent change): nothing was changed', ref('ErrorDetail'))],
};
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, { $ref: `#/components/responses/${ERRORS[s][0]}` }]));

/** The query parameters every list takes (components.parameters). */
const LIST_PARAMETERS: Record<string, object> = {
  limit: { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 0 }, description: 'Number of results to return per page.' },
  offset: { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0 }, description: 'The initial index from which to return the results.' },
  sort: { name: 'sort', in: 'query', required: false, schema: { type: 'string' }, description: 'Which field to use when ordering the results.' },
  depth: { name: 'depth', in: 'query', required: false, schema: { type: 'integer', minimum: 0, maximum: 10, default: 0 }, description: 'Serializer depth: related objects nested this many levels deep' },
  q: { name: 'q', in: 'query', required: false, schema: { type: 'string' }, description: 'Search' },
  id: {
    name: 'id',
    in: 'query',
    required: false,
    schema: { type: 'array', items: { type: 'string' } },
    style: 'form',
    explode: true,
    description: 'Unique object identifier, either a UUID primary key or a composite key.',
  },
};
const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/**
 * An operation id as Nautobot's (drf-spectacular's) schema spells them: the path's literal
 * segments after `/api/`, hyphens as underscores, then the action (`dcim_locations_list`,
 * `ipam_prefixes_available_ips_create`, `dcim_locations_bulk_partial_update`).
 */
export function operationId(path: string, method: string, list: boolean, bulk = false): string {
  const tokens = path
    .split('/')
    .filter((s) => s && !s.startsWith('{'))
    .map((s) => s.replace(/-/g, '_'));
  if (tokens[0] === 'api') tokens.shift();
  const action: Record<string, string> = {
    get: list ? 'list' : 'retrieve',
    post: 'create',
    put: bulk ? 'bulk_update' : 'update',
    patch: bulk ? 'bulk_partial_update' : 'partial_update',
    delete: bulk ? 'bulk_destroy' : 'destroy',
  };
  return [...(tokens.length ? tokens : ['root']), action[method]].join('_');
}

/** The tag of a path: its app (the first segment under `/api/`; `plugins` for a plugin's), or its first segment outside the API. */
export function tagOf(path: string): string {
  const s = path.split('/').filter(Boolean);
  return (s[0] === 'api' ? s[1] : s[0]) ?? 'api';
}

/** Every documented path ends in a slash (the API redirects the others), except files (`swagger.json`). */
const withSlash = (p: string) => (p.endsWith('/') || /\.[a-z0-9]+$/i.test(p) ? p : `${p}/`);

const isPage = (s: Schema | undefined): boolean => !!s && (s.type === 'array' || !!(s as { properties?: Schema }).properties?.results || (typeof s.$ref === 'string' && /\/Paginated\w+List$/.test(s.$ref)));

/** A model's list and detail paths in one API version. */
function modelPaths(def: ResourceDefinition, n: ModelSchemaNames, version: string): Record<string, PathItem> {
  const list = listPath(def);
  const detail = `${list}{id}/`;
  const tags = [tagOf(list)];
  const op = (path: string, method: string, o: Operation, bulk = false): Operation => ({ operationId: operationId(path, method, path === list && method === 'get', bulk), tags, ...o });
  const filters = Object.values(def.fields)
    .filter((f) => f.filter !== false && ['scalar', 'fk', 'm2m', 'contentTypes'].includes(f.kind) && fieldInVersion(f, version))
    .map((f) => f.name);
  const extra = Object.keys(def.filters ?? {}).filter((k) => k !== 'q' && !filters.includes(k));
  const array = (items: Schema) => ({ type: 'array', items });
  const depth = parameter('depth');
  const listParams = [
    ...Object.keys(LIST_PARAMETERS).map(parameter),
    ...[...filters, ...extra].map((name) => ({ name, in: 'query', required: false, schema: array({ type: 'string' }), style: 'form', explode: true })),
  ];
  const one = ref(n.read);
  const paths: Record<string, PathItem> = {
    [list]: { get: op(list, 'get', { description: `Retrieve a list of ${def.verboseName} objects.`, parameters: listParams, responses: { 200: answer('A page of objects', ref(n.page)), ...errors(400, 403) } }) },
    [detail]: {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: `A UUID string identifying this ${def.verboseName}.` }],
      get: op(detail, 'get', { description: `Retrieve a ${def.verboseName} object.`, parameters: [depth], responses: { 200: answer('The object', one), ...errors(403, 404) } }),
    },
  };
  const body = (schema: Schema) => ({ required: true, ...json(schema) });
  if (offers(def, 'create')) {
    paths[list].post = op(list, 'post', {
      // One object, as the reference's document has it: a list of them creates them all (or none) and answers a list.
      description: `Create one or more ${def.verboseName} objects (a list of them creates them all, or none).`,
      requestBody: body(ref(n.request)),
      responses: { 201: answer('The object created (a list for a list)', one), ...errors(400, 403, 409) },
    });
  }
  if (offers(def, 'update')) {
    paths[list].put = op(list, 'put', { description: `Update a list of ${def.verboseName} objects.`, requestBody: body(array(ref(n.bulk))), responses: { 200: answer('The objects updated', array(one)), ...errors(400, 403, 409) } }, true);
    paths[list].patch = op(list, 'patch', { description: `Partially update a list of ${def.verboseName} objects.`, requestBody: body(array(ref(n.patchedBulk))), responses: { 200: answer('The objects updated', array(one)), ...errors(400, 403, 409) } }, true);
    paths[detail].put = op(detail, 'put', { description: `Update a ${def.verboseName} object.`, requestBody: body(ref(n.request)), responses: { 200: answer('The object updated', one), ...errors(400, 403, 404, 409) } });
    paths[detail].patch = op(detail, 'patch', { description: `Partially update a ${def.verboseName} object.`, requestBody: body(ref(n.patched)), responses: { 200: answer('The object updated', one), ...errors(400, 403, 404, 409) } });
  }
  if (offers(def, 'delete')) {
    paths[list].delete = op(list, 'delete', { description: `Destroy a list of ${def.verboseName} objects.`, requestBody: body(array(ref('BulkOperationRequest'))), responses: { 204: answer('Deleted'), ...errors(400, 403, 409) } }, true);
    paths[detail].delete = op(detail, 'delete', { description: `Destroy a ${def.verboseName} object.`, responses: { 204: answer('Deleted'), ...errors(403, 404, 409) } });
  }
  return paths;
}

/**
 * The special controllers' routes as Nest's scanner sees them, made to read as the models'
 * paths do: every path with its trailing slash, a per-model sub-resource listed under each model
 * that has it, tags per app, Nautobot-style operation ids, the errors each may answer.
 */
function specialPaths(scanned: Record<string, PathItem>, models: Map<ResourceDefinition, ModelSchemaNames>): Record<string, PathItem> {
  const out: Record<string, PathItem> = {};
  const add = (path: string, method: string, operation: Operation) => {
    const o = { ...operation };
    delete o[PER_MODEL];
    // A GET that answers a list (or a page) is `_list`, as drf-spectacular tells them apart.
    o.operationId = operationId(path, method, method === 'get' && isPage(o.responses?.[200]?.content?.['application/json']?.schema));
    o.tags = [tagOf(path)];
    const statuses = [400, 403, ...(path.includes('{') ? [404] : []), ...(method === 'get' ? [] : [409])];
    o.responses = { ...errors(...statuses), ...(o.responses ?? {}) };
    // Nest names every route's parameters; a per-model path's `{app}` and `{model}` are gone.
    if (o.parameters) o.parameters = o.parameters.filter((p: { in: string; name: string }) => p.in !== 'path' || path.includes(`{${p.name}}`));
    (out[path] ??= {})[method] = o;
  };
  for (const [rawPath, item] of Object.entries(scanned)) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      const perModel = operation[PER_MODEL] as { feature: string; model: string } | undefined;
      if (!perModel) {
        add(withSlash(rawPath), method, operation);
        continue;
      }
      // `/api/{app}/{model}/{id}/notes` -> `/api/dcim/locations/{id}/notes/` for every model with notes.
      const template = withSlash(rawPath);
      const at = template.indexOf('{model}/');
      const shape = new RegExp(`^${template.slice(0, at).replace(/\{app\}/, '[^/]+')}[^/]+/$`);
      const target = [...models.entries()].find(([d]) => objectType(d) === perModel.model);
      for (const [def] of models) {
        if (!def.features.includes(perModel.feature) || !shape.test(listPath(def)) || !target) continue;
        const path = listPath(def) + template.slice(at + '{model}/'.length);
        const [model, names] = target;
        const o: Operation = { ...operation, description: operation.description ?? operation.summary };
        if (method === 'get') o.responses = { 200: answer(`A page of ${model.verboseNamePlural}`, ref(names.page)) };
        if (method === 'post') o.responses = { 201: answer(`The ${model.verboseName} created`, ref(names.read)) };
        add(path, method, o);
      }
    }
  }
  return out;
}

/**
 * The OpenAPI documents of the API, one per API version (built on first use, then kept: they
 * change only with the code): the models' paths and schemas from their definitions, the special
 * controllers' from Nest's scanner.
 */
@Injectable()
export class OpenApiDocuments {
  private readonly built = new Map<string, OpenAPIObject>();
  private scanned?: OpenAPIObject;
  private app?: INestApplication;

  constructor(private readonly registry: ResourceRegistry) {}

  /** The application whose special controllers Nest's scanner reads (bootstrap.ts, once it is created). */
  attach(app: INestApplication): void {
    this.app = app;
  }

  document(version = DEFAULT_VERSION): OpenAPIObject {
    let doc = this.built.get(version);
    if (!doc) this.built.set(version, (doc = this.build(version)));
    return doc;
  }

  private build(version: string): OpenAPIObject {
    if (!this.app) throw new Error('OpenApiDocuments: no application attached');
    this.scanned ??= SwaggerModule.createDocument(this.app, { openapi: '3.0.3', info: { title: '', version: '' } } as never);
    const names = componentNames(this.registry);
    const models = new Map<ResourceDefinition, ModelSchemaNames>();
    const paths: Record<string, PathItem> = {};
    const schemas: Record<string, Schema> = { ...COMMON_SCHEMAS };
    for (const def of this.registry.all()) {
      const n = schemaNames(names.get(def)!, def, version);
      models.set(def, n);
      Object.assign(paths, modelPaths(def, n, version));
      Object.assign(schemas, modelSchemas(this.registry, def, n, version));
    }
    const special = specialPaths((this.scanned.paths ?? {}) as Record<string, PathItem>, models);
    // A generated controller's own routes are the models' paths above.
    for (const [p, item] of Object.entries(special)) if (!paths[p]) paths[p] = item;
    const sorted = Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]]));
    return {
      openapi: '3.0.3',
      info: {
        title: 'netkeel API',
        version: `${NETKEEL_VERSION} (${version})`,
        description: `netkeel ${NETKEEL_VERSION}: a Nautobot 2.x compatible REST API, version ${version} (ask for another with \`?api_version=\` or \`Accept: application/json; version=<version>\`).`,
        license: { name: 'Apache-2.0' },
      },
      paths: sorted as OpenAPIObject['paths'],
      components: {
        parameters: LIST_PARAMETERS as never,
        responses: Object.fromEntries(Object.values(ERRORS)) as never,
        schemas: Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]])) as never,
        securitySchemes: {
          tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token-based authentication with required prefix "Token"' },
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'sessionid', description: 'A browser session (log in at /login/); writes also send the X-CSRFToken header' },
        },
      },
      security: [{ tokenAuth: [] }, { cookieAuth: [] }],
      tags: [...new Set(Object.keys(sorted).map(tagOf))].sort().map((name) => ({ name })),
    };
  }
}
