import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger, Optional } from '@nestjs/common';
import type { Response } from 'express';
import { NETKEEL_VERSION } from '../../version';
import { postgresDialect, mysqlDialect } from '../../database/dialect';
import { QueryFailedError } from 'typeorm';
import { BrowsableApi } from './browsable';
import { externalPath, NkRequest } from './request';
import { htmlHeaders, wantsHtml } from './reply';
import {
  BadRequestError,
  ConflictError,
  DomainError,
  HttpResult,
  MethodNotAllowedError,
  NotAcceptableError,
  NotAuthenticatedError,
  NotFoundError,
  PermissionDeniedError,
  TooManyRequestsError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../resource/errors';

/**
 * Every error becomes one stable JSON shape (DESIGN rule 9): `{"field": [...]}` for
 * validation, `{"detail": "..."}` for the rest, and a JSON 500 with `error` and `exception`
 * for anything unexpected; a browser gets that body on the browsable API's page. Never a
 * dropped connection.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  constructor(@Optional() private readonly browsable?: BrowsableApi) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<NkRequest>();
    const { status, body, headers } = this.map(exception);
    if (res.headersSent) {
      res.destroy(exception instanceof Error ? exception : undefined);
      return;
    }
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    if (wantsHtml(req)) {
      // A browser that is not logged in goes to the login page; other errors render as pages.
      if (status === 403 && !req.principal?.user && exception instanceof NotAuthenticatedError) {
        res.redirect(302, `${externalPath(req, '/login/')}?next=${encodeURIComponent(externalPath(req, req.originalUrl))}`);
        return;
      }
      res.status(status);
      if (this.browsable) {
        this.browsable.render(req, res, body).then(
          (html: string) => {
            htmlHeaders(res);
            res.send(html);
          },
          (e: unknown) => {
            this.logger.error(`The error page failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
            if (!res.headersSent) res.json(body);
          },
        );
        return;
      }
    }
    res.status(status).json(body);
  }

  map(e: unknown): { status: number; body: unknown; headers: Record<string, string> } {
    const detail = (status: number, msg: string, headers: Record<string, string> = {}) => ({ status, body: { detail: msg }, headers });
    if (e instanceof HttpResult) return { status: e.status, body: e.body, headers: e.headers };
    if (e instanceof ValidationError) return { status: 400, body: e.errors, headers: {} };
    if (e instanceof BadRequestError) return detail(400, e.message);
    if (e instanceof NotFoundError) return detail(404, e.message);
    if (e instanceof NotAuthenticatedError || e instanceof PermissionDeniedError) return detail(403, e.message);
    if (e instanceof MethodNotAllowedError) return detail(405, e.message);
    if (e instanceof NotAcceptableError) return detail(406, e.message);
    if (e instanceof ConflictError) return detail(409, e.message);
    if (e instanceof UnsupportedMediaTypeError) return detail(415, e.message);
    if (e instanceof TooManyRequestsError) return detail(429, e.message, { 'Retry-After': String(e.retryAfterSeconds) });
    if (e instanceof DomainError) return detail(400, e.message);
    if (e instanceof HttpException) {
      const status = e.getStatus();
      if (status === 404) return detail(404, 'Not found.');
      if (status === 413) return detail(413, 'Request body is too large.');
      const r = e.getResponse();
      const msg = typeof r === 'string' ? r : ((r as { message?: string }).message ?? e.message);
      return detail(status, Array.isArray(msg) ? msg.join('; ') : String(msg));
    }
    if (e instanceof QueryFailedError) {
      const kind = postgresDialect.errorKind(e) ?? mysqlDialect.errorKind(e);
      if (kind === 'unique') return { status: 400, body: { non_field_errors: ['An object with these unique values already exists.'] }, headers: {} };
      if (kind === 'foreign_key') return detail(409, 'The change conflicts with objects that refer to it (or that it refers to); nothing was changed.');
      if (kind === 'timeout') return detail(400, 'The query was cancelled because it took too long; narrow the filters.');
      if (kind === 'regex') return detail(400, `Invalid regular expression: ${driverMessage(e)}`);
      if (kind === 'invalid_value') return detail(400, `Invalid value: ${driverMessage(e)}`);
      if (kind === 'deadlock') return detail(409, 'The request conflicted with a concurrent change; nothing was changed. Retry it.');
    }
    const err = e instanceof Error ? e : new Error(String(e));
    this.logger.error(err.stack ?? err.message);
    return {
      status: 500,
      // No runtime versions: they only help an attacker pick an exploit.
      body: { error: err.message, exception: err.constructor?.name ?? 'Error', netkeel_version: NETKEEL_VERSION },
      headers: {},
    };
  }
}

function driverMessage(e: QueryFailedError): string {
  const d = (e as unknown as { driverError?: { message?: string } }).driverError;
  return String(d?.message ?? e.message).split('\n')[0];
}
