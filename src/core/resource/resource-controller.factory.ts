import { Controller, Delete, Get, Header, Inject, Options, Patch, Post, Put, Req, Type } from '@nestjs/common';
import { ResourceRoute } from '../auth/decorators';
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


const pascal = (s: string) => s.replace(/(^|[-_])(\w)/g, (_, __, c: string) => c.toUpperCase());

/**
 * Generates the list and detail routes of one resource from its definition: no model has a
 * hand-written CRUD controller. Handlers only translate HTTP to the service and return values.
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

    @Get()
    @Header('Allow', listAllow)
    @ResourceRoute(def, 'view')
    async list(@Req() req: NkRequest) {
      const ctx = this.contexts.create(req);
      const q = toQuery(req.query);
      const exported = await listExport(ctx, this.service, def, q);
      if (exported) return exported;
      if (wantsCsv(req)) return this.csv.exportList(ctx, def, q);
      return this.service.list(ctx, def, q, req.path);
    }

    @Post()
    @Header('Allow', listAllow)
    @ResourceRoute(def, 'add')
    async create(@Req() req: NkRequest) {
      writable(req, 'create');
      const ctx = this.contexts.create(req);
      const body = parseBody(req, true, 'refuse', !!def.multipart);
      const q = toQuery(req.query);
      if (isCsvBody(body)) return new ApiResponse(201, await this.csv.importCreate(ctx, def, body.csv, q));
      return new ApiResponse(201, await this.service.create(ctx, def, body ?? {}, q));
    }

    @Put()
    @Header('Allow', listAllow)
    @ResourceRoute(def, 'change')
    async bulkPut(@Req() req: NkRequest) {
      return this.bulkUpdate(req, 'replace');
    }

    @Patch()
    @Header('Allow', listAllow)
    @ResourceRoute(def, 'change')
    async bulkPatch(@Req() req: NkRequest) {
      return this.bulkUpdate(req, 'patch');
    }

    async bulkUpdate(req: NkRequest, mode: 'replace' | 'patch') {
      writable(req, 'update');
      const ctx = this.contexts.create(req);
      const body = parseBody(req);
      const q = toQuery(req.query);
      if (isCsvBody(body)) return this.csv.importUpdate(ctx, def, body.csv, mode, q);
      return this.service.bulkUpdate(ctx, def, body, mode, q);
    }

    @Delete()
    @Header('Allow', listAllow)
    @ResourceRoute(def, 'delete')
    async bulkDelete(@Req() req: NkRequest) {
      writable(req, 'delete');
      parseDepth(toQuery(req.query), req.method);
      const ctx = this.contexts.create(req);
      await this.service.bulkDestroy(ctx, def, parseBody(req, false));
      return new ApiResponse(204, undefined);
    }

    @Options()
    @Header('Allow', listAllow)
    @ResourceRoute(def, 'options')
    async optionsList(@Req() req: NkRequest) {
      return optionsMetadata(this.contexts.create(req), def, false);
    }

    @Get(':id')
    @Header('Allow', detailAllow)
    @ResourceRoute(def, 'view')
    async retrieve(@Req() req: NkRequest) {
      const ctx = this.contexts.create(req);
      const q = toQuery(req.query);
      if (wantsCsv(req)) return this.csv.exportDetail(ctx, def, String(req.params.id), q);
      return this.service.retrieve(ctx, def, String(req.params.id), q);
    }

    @Put(':id')
    @Header('Allow', detailAllow)
    @ResourceRoute(def, 'change')
    async put(@Req() req: NkRequest) {
      return this.updateOne(req, 'replace');
    }

    @Patch(':id')
    @Header('Allow', detailAllow)
    @ResourceRoute(def, 'change')
    async patch(@Req() req: NkRequest) {
      return this.updateOne(req, 'patch');
    }

    async updateOne(req: NkRequest, mode: 'replace' | 'patch') {
      writable(req, 'update');
      const ctx = this.contexts.create(req);
      let body = parseBody(req, true, 'refuse', !!def.multipart);
      const q = toQuery(req.query);
      if (isCsvBody(body)) body = await this.csv.firstRow(ctx, def, body.csv);
      return this.service.update(ctx, def, String(req.params.id), body ?? {}, mode, q);
    }

    @Delete(':id')
    @Header('Allow', detailAllow)
    @ResourceRoute(def, 'delete')
    async destroy(@Req() req: NkRequest) {
      writable(req, 'delete');
      parseDepth(toQuery(req.query), req.method);
      await this.service.destroy(this.contexts.create(req), def, String(req.params.id));
      return new ApiResponse(204, undefined);
    }

    /** A detail URL takes no POST: 405 naming what it does take (after authentication, as DRF does). */
    @Post(':id')
    @Header('Allow', detailAllow)
    @ResourceRoute(def, 'add')
    async postDetail(@Req() req: NkRequest) {
      throw new MethodNotAllowedError(req.method);
    }

    @Options(':id')
    @Header('Allow', detailAllow)
    @ResourceRoute(def, 'options')
    async optionsDetail(@Req() req: NkRequest) {
      return optionsMetadata(this.contexts.create(req), def, true);
    }
  }
  Object.defineProperty(GeneratedResourceController, 'name', { value: `${pascal(def.app)}${pascal(def.slug)}Controller` });
  return GeneratedResourceController;
}
