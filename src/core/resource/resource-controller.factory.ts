import { All, Controller, Header, Inject, Req, Type } from '@nestjs/common';
import { MethodActions, ResourceRoute } from '../auth/decorators';
import { ApiResponse } from '../http/api-response';
import { ContextFactory } from '../http/context.factory';
import { wantsCsv } from '../http/negotiation';
import { isCsvBody, NkRequest, parseBody } from '../http/request';
import { allowHeader, ApiWrite, listPath, offers, ResourceDefinition } from './definition';
import { MethodNotAllowedError } from './errors';
import { optionsMetadata } from './options';
import { parseDepth, toQuery } from './query/params';
import { ResourceService } from './resource.service';
import { CsvService } from './csv/csv.service';
import { listExport } from './list-export';
import { formToInput } from './csv/csv-import';


/**
 * The action each method asks for, on a list URL and a detail URL alike (a detail's POST is
 * refused with 405 once the add permission is checked, as DRF does); a method not named here is
 * a 404, as without a route.
 */
const ACTIONS: MethodActions = { GET: 'view', HEAD: 'view', POST: 'add', PUT: 'change', PATCH: 'change', DELETE: 'delete', OPTIONS: 'options' };

const pascal = (s: string) => s.replace(/(^|[-_])(\w)/g, (_, __, c: string) => c.toUpperCase());

/** A generated route: its express path and its handler method. */
export interface GeneratedRoute {
  path: string;
  handler: 'listRoute' | 'detailRoute';
}

/** The routes of each generated controller class: what core/http/direct-routes.ts dispatches without Nest's per-request machinery. */
export const GENERATED_ROUTES = new WeakMap<Function, GeneratedRoute[]>();

/**
 * Generates the list and detail routes of one resource from its definition: no model has a
 * hand-written CRUD controller. Handlers only translate HTTP to the service and return values.
 * Each URL is one route whatever the method (the guard reads the method's action from
 * ACTIONS): Nest builds an execution context per route at every start, and express tries
 * each route of a path in turn.
 */
export function createResourceController(def: ResourceDefinition): Type<unknown> {
  const listAllow = allowHeader(def, false);
  const detailAllow = allowHeader(def, true);
  const writable = (req: NkRequest, write: ApiWrite) => {
    if (!offers(def, write)) throw new MethodNotAllowedError(req.method);
  };

  @Controller(listPath(def).slice(1, -1))
  class GeneratedResourceController {
    constructor(
      @Inject(ResourceService) readonly service: ResourceService,
      @Inject(ContextFactory) readonly contexts: ContextFactory,
      @Inject(CsvService) readonly csv: CsvService,
    ) {}

    /** The list URL: one route, the handler chosen by the method. */
    @All()
    @Header('Allow', listAllow)
    @ResourceRoute(def, ACTIONS)
    async listRoute(@Req() req: NkRequest) {
      switch (req.method) {
        case 'GET':
        case 'HEAD':
          return this.list(req);
        case 'POST':
          return this.create(req);
        case 'PUT':
          return this.bulkUpdate(req, 'replace');
        case 'PATCH':
          return this.bulkUpdate(req, 'patch');
        case 'DELETE':
          return this.bulkDelete(req);
        default:
          return optionsMetadata(this.contexts.create(req), def, false);
      }
    }

    /** A detail URL: one route, as the list's. */
    @All(':id')
    @Header('Allow', detailAllow)
    @ResourceRoute(def, ACTIONS)
    async detailRoute(@Req() req: NkRequest) {
      switch (req.method) {
        case 'GET':
        case 'HEAD':
          return this.retrieve(req);
        case 'PUT':
          return this.updateOne(req, 'replace');
        case 'PATCH':
          return this.updateOne(req, 'patch');
        case 'DELETE':
          return this.destroy(req);
        case 'POST':
          // A detail URL takes no POST: 405 naming what it does take (after authentication and
          // the add permission, as DRF does).
          throw new MethodNotAllowedError(req.method);
        default:
          return optionsMetadata(this.contexts.create(req), def, true);
      }
    }

    async list(req: NkRequest) {
      const ctx = this.contexts.create(req);
      const q = toQuery(req.query);
      const exported = await listExport(ctx, this.service, def, q);
      if (exported) return exported;
      if (wantsCsv(req)) return this.csv.exportList(ctx, def, q);
      // Only written as the response (the browsable page reads it through `withRepresentations`).
      return this.service.list(ctx, def, q, req.path, undefined, true);
    }

    async create(req: NkRequest) {
      writable(req, 'create');
      const ctx = this.contexts.create(req);
      const fields = req.form?.fields;
      const body = fields ? await formToInput(ctx, def, fields, true) : parseBody(req, true, 'refuse', !!def.multipart);
      const q = toQuery(req.query);
      if (isCsvBody(body)) return new ApiResponse(201, await this.csv.importCreate(ctx, def, body.csv, q));
      return new ApiResponse(201, await this.service.create(ctx, def, body ?? {}, q));
    }

    async bulkUpdate(req: NkRequest, mode: 'replace' | 'patch') {
      writable(req, 'update');
      const ctx = this.contexts.create(req);
      const body = parseBody(req);
      const q = toQuery(req.query);
      if (isCsvBody(body)) return this.csv.importUpdate(ctx, def, body.csv, mode, q);
      return this.service.bulkUpdate(ctx, def, body, mode, q);
    }

    async bulkDelete(req: NkRequest) {
      writable(req, 'delete');
      parseDepth(toQuery(req.query), req.method);
      const ctx = this.contexts.create(req);
      await this.service.bulkDestroy(ctx, def, parseBody(req, false));
      return new ApiResponse(204, undefined);
    }

    async retrieve(req: NkRequest) {
      const ctx = this.contexts.create(req);
      const q = toQuery(req.query);
      if (wantsCsv(req)) return this.csv.exportDetail(ctx, def, String(req.params.id), q);
      return this.service.retrieve(ctx, def, String(req.params.id), q);
    }

    async updateOne(req: NkRequest, mode: 'replace' | 'patch') {
      writable(req, 'update');
      const ctx = this.contexts.create(req);
      const fields = req.form?.fields;
      let body = fields ? await formToInput(ctx, def, fields, false) : parseBody(req, true, 'refuse', !!def.multipart);
      const q = toQuery(req.query);
      if (isCsvBody(body)) body = await this.csv.firstRow(ctx, def, body.csv);
      return this.service.update(ctx, def, String(req.params.id), body ?? {}, mode, q);
    }

    async destroy(req: NkRequest) {
      writable(req, 'delete');
      parseDepth(toQuery(req.query), req.method);
      await this.service.destroy(this.contexts.create(req), def, String(req.params.id));
      return new ApiResponse(204, undefined);
    }
  }
  const base = listPath(def).slice(0, -1);
  GENERATED_ROUTES.set(GeneratedResourceController, [
    { path: base, handler: 'listRoute' },
    { path: `${base}/:id`, handler: 'detailRoute' },
  ]);
  Object.defineProperty(GeneratedResourceController, 'name', { value: `${pascal(def.app)}${pascal(def.slug)}Controller` });
  return GeneratedResourceController;
}
