import type { INestApplication } from '@nestjs/common';
import { SwaggerModule, OpenAPIObject } from '@nestjs/swagger';
import { NETKEEL_VERSION } from '../../version';
import { listPath, offers, ResourceDefinition, objectType } from '../resource/definition';
import type { Field } from '../resource/fields';
import { ResourceRegistry } from '../resource/registry';
import { writable } from '../resource/serialize/input';
import { DEFAULT_VERSION } from './versioning';
import { baseUrl } from './request';
import type { Request } from 'express';

type Schema = Record<string, unknown>;

const pascal = (s: string) => s.replace(/(^|[-_])(\w)/g, (_, __, c: string) => c.toUpperCase());
const REF = { type: 'object', properties: { id: { type: 'string', format: 'uuid' }, object_type: { type: 'string' }, url: { type: 'string', format: 'uri' } } };
const WRITE_REF = { oneOf: [{ type: 'string', format: 'uuid' }, { type: 'string', description: 'URL or natural key' }, { type: 'object', description: 'attributes identifying one object' }] };

function scalarSchema(f: Field): Schema {
  switch (f.kind) {
    case 'scalar': {
      const base: Schema = {
        string: { type: 'string' },
        text: { type: 'string' },
        uuid: { type: 'string', format: 'uuid' },
        integer: { type: 'integer' },
        decimal: { type: 'string', format: 'decimal' },
        boolean: { type: 'boolean' },
        date: { type: 'string', format: 'date' },
        datetime: { type: 'string', format: 'date-time' },
        json: {},
      }[f.type] as Schema;
      // A list field: an array of its items (the choices' values where it has choices).
      const items: Schema | undefined = f.listOf && (f.listOf.choices ? { enum: f.listOf.choices.map((c) => c[0]) } : { type: f.listOf.type });
      const s: Schema = items ? { type: 'array', items } : { ...base };
      if (f.maxLength) s.maxLength = f.maxLength;
      if (f.minValue !== undefined) s.minimum = f.minValue;
      if (f.maxValue !== undefined) s.maximum = f.maxValue;
      if (f.nullable) s.nullable = true;
      if (f.help) s.description = f.help;
      if (f.choices) return { type: 'object', properties: { value: { enum: f.choices.map((c) => c[0]) }, label: { type: 'string' } } };
      return s;
    }
    case 'fk':
      return f.nullable ? { ...REF, nullable: true } : REF;
    case 'gfk':
      return { ...REF, nullable: true };
    case 'm2m':
      return f.single ? { ...REF, nullable: true } : { type: 'array', items: REF };
    case 'contentTypes':
      return { type: 'array', items: { type: 'string' } };
    case 'count':
      return { type: 'integer', readOnly: true };
    case 'computed':
    case 'composite':
      return f.schema;
  }
}

function writeSchema(f: Field): Schema {
  if (f.kind === 'fk') return f.nullable ? { ...WRITE_REF, nullable: true } : WRITE_REF;
  if (f.kind === 'm2m') return f.single ? { ...WRITE_REF, nullable: true } : { type: 'array', items: WRITE_REF };
  if (f.kind === 'scalar' && f.choices) return { enum: f.choices.map((c) => c[0]) };
  return scalarSchema(f);
}

function schemas(registry: ResourceRegistry, def: ResourceDefinition): Record<string, Schema> {
  const name = pascal(def.model);
  const read: Record<string, Schema> = {
    id: { type: 'string', format: 'uuid' },
    object_type: { type: 'string', example: objectType(def) },
    display: { type: 'string' },
    url: { type: 'string', format: 'uri' },
    natural_slug: { type: 'string' },
  };
  if (def.tree) read.tree_depth = { type: 'integer', nullable: true };
  const write: Record<string, Schema> = { id: { type: 'string', format: 'uuid', description: 'optional on create' } };
  const required: string[] = [];
  for (const f of Object.values(def.fields)) {
    if (!f.writeOnly) read[f.name] = scalarSchema(f);
    if (writable(f)) {
      if (f.kind === 'gfk') {
        write[f.typeKey!] = { type: 'string' };
        write[f.idKey!] = { type: 'string', format: 'uuid' };
      } else write[f.name] = writeSchema(f);
      if (f.required) required.push(f.name);
    }
  }
  read.created = { type: 'string', format: 'date-time' };
  read.last_updated = { type: 'string', format: 'date-time' };
  for (const e of registry.extensionsOf(def)) {
    for (const [key, k] of Object.entries(e.represent?.keys ?? {})) {
      read[key] = k.schema;
      if (k.writable) write[key] = k.schema;
    }
  }
  return {
    [name]: { type: 'object', properties: read },
    [`Writable${name}`]: { type: 'object', properties: write, required },
  };
}

function paths(def: ResourceDefinition): Record<string, Schema> {
  const name = pascal(def.model);
  const ref = { $ref: `#/components/schemas/${name}` };
  const wref = { $ref: `#/components/schemas/Writable${name}` };
  const json = (schema: Schema) => ({ content: { 'application/json': { schema } } });
  const tags = [def.app];
  const filters = Object.values(def.fields)
    .filter((f) => f.filter !== false && ['scalar', 'fk', 'm2m', 'contentTypes'].includes(f.kind))
    .map((f) => ({ name: f.name, in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true }));
  const listParams = [
    { name: 'limit', in: 'query', schema: { type: 'integer' } },
    { name: 'offset', in: 'query', schema: { type: 'integer' } },
    { name: 'sort', in: 'query', schema: { type: 'string' } },
    { name: 'depth', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 10, default: 0 } },
    { name: 'q', in: 'query', schema: { type: 'string' } },
    { name: 'id', in: 'query', schema: { type: 'array', items: { type: 'string', format: 'uuid' } }, explode: true },
    ...filters,
  ];
  const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const list: Schema = {
    get: {
      tags,
      operationId: `${def.app}_${def.slug}_list`,
      parameters: listParams,
      responses: {
        200: json({ type: 'object', properties: { count: { type: 'integer' }, next: { type: 'string', nullable: true }, previous: { type: 'string', nullable: true }, results: { type: 'array', items: ref } } }),
      },
    },
  };
  const detail: Schema = {
    parameters: [idParam],
    get: { tags, operationId: `${def.app}_${def.slug}_retrieve`, parameters: [{ name: 'depth', in: 'query', schema: { type: 'integer' } }], responses: { 200: json(ref) } },
  };
  if (offers(def, 'create')) {
    list.post = { tags, operationId: `${def.app}_${def.slug}_create`, requestBody: json({ oneOf: [wref, { type: 'array', items: wref }] }), responses: { 201: json(ref) } };
  }
  if (offers(def, 'update')) {
    list.put = { tags, operationId: `${def.app}_${def.slug}_bulk_update`, requestBody: json({ type: 'array', items: wref }), responses: { 200: json({ type: 'array', items: ref }) } };
    list.patch = { tags, operationId: `${def.app}_${def.slug}_bulk_partial_update`, requestBody: json({ type: 'array', items: wref }), responses: { 200: json({ type: 'array', items: ref }) } };
    detail.put = { tags, operationId: `${def.app}_${def.slug}_update`, requestBody: json(wref), responses: { 200: json(ref) } };
    detail.patch = { tags, operationId: `${def.app}_${def.slug}_partial_update`, requestBody: json(wref), responses: { 200: json(ref) } };
  }
  if (offers(def, 'delete')) {
    list.delete = { tags, operationId: `${def.app}_${def.slug}_bulk_destroy`, requestBody: json({ type: 'array', items: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } } }), responses: { 204: { description: 'deleted' } } };
    detail.delete = { tags, operationId: `${def.app}_${def.slug}_destroy`, responses: { 204: { description: 'deleted' } } };
  }
  return { [listPath(def)]: list, [`${listPath(def)}{id}/`]: detail };
}

/** The OpenAPI document, derived from the resource definitions plus the special controllers Nest knows. */
export function buildOpenApi(app: INestApplication, registry: ResourceRegistry): OpenAPIObject {
  const scanned = SwaggerModule.createDocument(app, {
    openapi: '3.0.3',
    info: { title: 'netkeel API', version: DEFAULT_VERSION, description: `netkeel ${NETKEEL_VERSION}: a Nautobot 2.x compatible REST API.` },
  } as never);
  const generated: Record<string, Schema> = {};
  const components: Record<string, Schema> = {};
  for (const def of registry.all()) {
    Object.assign(generated, paths(def));
    Object.assign(components, schemas(registry, def));
  }
  // Scanned routes of the generated controllers are replaced; special endpoints below them (intake, history, notes) stay.
  const keep = Object.fromEntries(Object.entries(scanned.paths ?? {}).filter(([p]) => !generated[p] && !generated[`${p}/`]));
  return {
    ...scanned,
    paths: { ...keep, ...generated } as OpenAPIObject['paths'],
    components: {
      ...(scanned.components ?? {}),
      schemas: { ...(scanned.components?.schemas ?? {}), ...components } as never,
      securitySchemes: { tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token <key>' } },
    },
    security: [{ tokenAuth: [] }],
  };
}

/** Swagger UI at /api/docs/, the document at /api/swagger.json (and .yaml). */
export function setupDocs(app: INestApplication): void {
  const registry = app.get(ResourceRegistry);
  SwaggerModule.setup('api/docs', app, () => buildOpenApi(app, registry), {
    jsonDocumentUrl: 'api/swagger.json',
    yamlDocumentUrl: 'api/swagger.yaml',
    customSiteTitle: 'netkeel API',
    // The paths are app-relative: the server is the service's root as this client sees it
    // (scheme, host and prefix behind a proxy, BASE_PATH).
    patchDocumentOnRequest: <TRequest>(req: TRequest, _res: unknown, document: OpenAPIObject) => ({ ...document, servers: [{ url: baseUrl(req as Request) }] }),
  });
}
