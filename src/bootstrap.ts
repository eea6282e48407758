import { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule, AppOptions } from './app.module';
import { pipelineMiddleware } from './core/http/pipeline.middleware';
import { expressTrust } from './core/http/external';
import { OpenApiDocuments } from './core/http/openapi';
import { AppLogger } from './core/http/app-logger';
import { jsonChunks } from './core/http/json-body';
import { installReply } from './core/http/reply';
import { BrowsableApi } from './core/http/browsable';
import { indexRoutes } from './core/http/route-index';
import { directRoutes } from './core/http/direct-routes';
import { NkExpressAdapter } from './core/http/express-adapter';
import { SETTINGS } from './config/settings.module';
import { Db } from './database/db';
import type { Response } from 'express';

const LEVELS: Record<string, LogLevel[]> = {
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  log: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  verbose: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

/** Creates the configured application (used by main.ts, the tests and the benchmarks). */
export async function createApp(opts: AppOptions, logLevel = opts.settings.LOG_LEVEL): Promise<INestApplication> {
  const adapter = new NkExpressAdapter();
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(opts), adapter, {
    bodyParser: false,
    logger: new AppLogger(LEVELS[logLevel] ?? LEVELS.info),
    abortOnError: false,
  });
  // req.ip (login throttling) from X-Forwarded-For of the same trusted proxies; everything else
  // the proxies say is read once per request by the pipeline (core/http/external.ts).
  app.set('trust proxy', expressTrust(opts.settings.TRUST_PROXY));
  app.set('etag', false);
  app.disable('x-powered-by');
  fastJson(app);
  installReply(app.getHttpAdapter(), app.get(SETTINGS), app.get(Db), app.get(BrowsableApi));
  const pipeline = pipelineMiddleware({
    maxBodySize: opts.settings.MAX_BODY_SIZE,
    allowedHosts: opts.settings.ALLOWED_HOSTS,
    trustProxy: opts.settings.TRUST_PROXY,
    basePath: opts.settings.BASE_PATH,
  });
  app.use(pipeline);
  app.get(OpenApiDocuments).attach(app);
  app.enableShutdownHooks();
  await app.init();
  // Every route is registered by now: index them by their first path segments, the generated
  // resource routes run by the index itself, and those run ahead of express's router.
  adapter.dispatchDirectly(pipeline, indexRoutes(app.getHttpAdapter().getInstance().router, directRoutes(app)));
  return app;
}

/**
 * JSON bodies through `jsonChunks` (a long list encoded object by object into small buffers,
 * several ms less on a page of 1,000 objects), written as those chunks with their total length.
 * What express's `send` would do besides (a Content-Type through the MIME table, freshness,
 * HEAD, the statuses without a body) is done by `send` itself only where it can matter: a HEAD,
 * a 204/205/304, a response with validators (ETag, Last-Modified) or a Transfer-Encoding. For
 * everything else it only cost time (~1 % of a small request's CPU).
 */
function fastJson(app: NestExpressApplication): void {
  const response = app.getHttpAdapter().getInstance().response as Response;
  const json = response.json;
  response.json = function (this: Response, body: unknown) {
    const chunks = jsonChunks(body);
    if (!chunks) return json.call(this, body);
    if (!this.getHeader('Content-Type')) this.setHeader('Content-Type', 'application/json; charset=utf-8');
    const status = this.statusCode;
    if (this.req.method === 'HEAD' || status === 204 || status === 205 || status === 304 || this.getHeader('ETag') || this.getHeader('Last-Modified') || this.getHeader('Transfer-Encoding')) {
      return this.send(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    }
    this.setHeader('Content-Length', String(chunks.reduce((n, c) => n + c.length, 0)));
    if (chunks.length === 1) {
      this.end(chunks[0]);
      return this;
    }
    this.cork();
    for (const c of chunks) this.write(c);
    this.end(); // end() uncorks
    return this;
  };
}
