import type { INestApplication } from '@nestjs/common';
import { HEADERS_METADATA, HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { NextFunction, Response } from 'express';
import { AuthGuard } from '../auth/auth.guard';
import { GENERATED_ROUTES } from '../resource/resource-controller.factory';
import { ApiExceptionFilter } from './exception.filter';
import type { NkRequest } from './request';
import type { DirectRoute } from './route-index';

/**
 * The generated resource routes (every model's list and detail URL), by their express path, as
 * functions the route index (route-index.ts) calls in place of Nest's route handler.
 *
 * Nest runs a route's handler through its per-request machinery: an execution context, the
 * guards consumer, the interceptors consumer, the parameter factories and the response
 * controller, a few dozen promises and objects per request (~15 % of a detail's CPU with the
 * second router pass before it). A generated route has none of what that machinery is for (no
 * interceptor, pipe, parameter decorator but `@Req`, redirect or template), so it is run here
 * as Nest runs it, step by step: the global guard (AuthGuard.check, the route's access read
 * from the same metadata), the status and the `@Header` headers Nest sets once the guard has
 * passed (so a guard's error carries no `Allow`), the handler, the reply through the HTTP
 * adapter (the browsable API's and JSON's, core/http/reply.ts) and any error through the
 * global exception filter with the arguments host Nest would give it. Every other route (the
 * special endpoints, and a generated route whose URL an earlier route also matches) is Nest's
 * as before.
 */
export function directRoutes(app: INestApplication): Map<string, DirectRoute> {
  const guard = app.get(AuthGuard);
  const filter = app.get(ApiExceptionFilter);
  const adapter = app.getHttpAdapter();
  const routes = new Map<string, DirectRoute>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const generated = wrapper.metatype && GENERATED_ROUTES.get(wrapper.metatype);
      const instance = wrapper.instance as Record<string, (req: NkRequest) => Promise<unknown>> | undefined;
      if (!generated || !instance || !wrapper.isDependencyTreeStatic()) continue;
      for (const { path, handler } of generated) {
        const fn = instance[handler];
        const access = guard.accessOf(fn, wrapper.metatype as Function);
        const status: number = Reflect.getMetadata(HTTP_CODE_METADATA, fn) ?? 200;
        const headers: { name: string; value: string }[] = Reflect.getMetadata(HEADERS_METADATA, fn) ?? [];
        const run = async (req: NkRequest, res: Response, next: NextFunction) => {
          try {
            await guard.check(req, res, access);
            res.statusCode = status;
            for (const h of headers) res.setHeader(h.name, h.value);
            await adapter.reply(res, await fn.call(instance, req), undefined);
          } catch (e) {
            filter.catch(e, new ExecutionContextHost([req, res, next]));
          }
        };
        routes.set(path, (req, res, next, params) => {
          req.params = params;
          void run(req as NkRequest, res, next);
        });
      }
    }
  }
  return routes;
}
