import { Controller, Get, Param, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { dump } from 'js-yaml';
import { Public } from '../auth/decorators';
import { NotFoundError } from '../resource/errors';
import { ApiResponse } from './api-response';
import { docsFile, redocPage, REDOC_CSP, SWAGGER_CSP, swaggerPage } from './docs-pages';
import { OpenApiDocuments } from './openapi';
import { baseUrl, externalPath, NkRequest } from './request';
import { DEFAULT_VERSION } from './versioning';

const JSON_TYPE = 'application/vnd.oai.openapi+json; charset=utf-8';
const YAML_TYPE = 'application/vnd.oai.openapi; charset=utf-8';

type Kind = 'html' | 'json' | 'yaml';

/**
 * What `/api/swagger/` answers, as the reference's schema view does: `?format=` (`json`,
 * `openapi-json`; `yaml`, `openapi`), else the Accept header: JSON for a JSON type, Swagger UI
 * for a browser (text/html before any JSON or YAML type), YAML for anything else.
 */
export function documentKind(accept: string | undefined, format: unknown): Kind | null {
  const f = Array.isArray(format) ? format[0] : format;
  if (f !== undefined) return ({ json: 'json', 'openapi-json': 'json', yaml: 'yaml', openapi: 'yaml' } as Record<string, Kind>)[String(f)] ?? null;
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (params.some((p) => p === 'q=0' || p === 'q=0.0')) continue;
    if (type === 'application/json' || type === 'application/vnd.oai.openapi+json') return 'json';
    if (type === 'text/html') return 'html';
    if (type === 'application/yaml' || type === 'application/vnd.oai.openapi' || type === 'text/yaml') return 'yaml';
  }
  return 'yaml';
}

/**
 * The API's documentation: Swagger UI at `/api/docs/` (and `/api/swagger/` for a browser),
 * ReDoc at `/api/redoc/`, the OpenAPI document at `/api/swagger.json` and `/api/swagger.yaml`
 * (and `/api/swagger/` by content negotiation). Each is of the request's API version
 * (`?api_version=` or the Accept header's `version=`), and names this service's external root as
 * the server. The pages load the packages' builds from this origin, under a CSP with no inline
 * script. Anyone may read them, as the API root tells anyone where the API is.
 */
@ApiExcludeController()
@Controller('api')
export class DocsController {
  private readonly texts = new Map<string, string>();

  constructor(private readonly documents: OpenApiDocuments) {}

  @Get('docs')
  @Public()
  swagger(@Req() req: NkRequest) {
    // pynautobot's `openapi()` (and drf-yasg's clients) ask the docs page for the document.
    if (req.query.format === 'openapi') {
      const version = req.query.api_version === undefined ? '' : `?api_version=${encodeURIComponent(this.version(req))}`;
      return new ApiResponse(301, { detail: 'Moved permanently.' }, { Location: externalPath(req, `/api/swagger.json${version}`) });
    }
    return this.page(req, 'swagger');
  }

  @Get('redoc')
  @Public()
  redoc(@Req() req: NkRequest) {
    return this.page(req, 'redoc');
  }

  @Get('swagger')
  @Public()
  negotiated(@Req() req: NkRequest) {
    const kind = documentKind(req.headers.accept, req.query.format);
    if (!kind) throw new NotFoundError();
    return kind === 'html' ? this.page(req, 'swagger') : this.document(req, kind);
  }

  @Get('swagger.json')
  @Public()
  json(@Req() req: NkRequest) {
    return this.document(req, 'json');
  }

  @Get('swagger.yaml')
  @Public()
  yaml(@Req() req: NkRequest) {
    return this.document(req, 'yaml');
  }

  @Get('docs/static/:file')
  @Public()
  file(@Param('file') name: string) {
    const found = docsFile(name);
    if (!found) throw new NotFoundError();
    return new ApiResponse(200, found.text, { 'Content-Type': `${found.type}; charset=utf-8`, 'Cache-Control': 'public, max-age=86400' });
  }

  private version(req: NkRequest): string {
    return req.apiVersion ?? DEFAULT_VERSION;
  }

  private page(req: NkRequest, which: 'swagger' | 'redoc') {
    const prefix = externalPath(req, '');
    const html = which === 'swagger' ? swaggerPage(prefix, this.version(req)) : redocPage(prefix, this.version(req));
    return new ApiResponse(200, html, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': which === 'swagger' ? SWAGGER_CSP : REDOC_CSP, 'X-Frame-Options': 'DENY' });
  }

  /**
   * The document as text, its server this request's external root: the rest is serialized once
   * per version and format (a megabyte of JSON), the server put in front of it.
   */
  private document(req: NkRequest, kind: 'json' | 'yaml') {
    const version = this.version(req);
    const key = `${kind}:${version}`;
    let text = this.texts.get(key);
    if (text === undefined) {
      const doc = this.documents.document(version);
      text = kind === 'json' ? JSON.stringify(doc) : dump(doc, { noRefs: true, lineWidth: -1 });
      this.texts.set(key, text);
    }
    const servers = [{ url: baseUrl(req) }];
    const body = kind === 'json' ? `{"servers":${JSON.stringify(servers)},${text.slice(1)}` : `${dump({ servers })}${text}`;
    const name = `netkeel-api-${version}.${kind}`;
    return new ApiResponse(200, body, { 'Content-Type': kind === 'json' ? JSON_TYPE : YAML_TYPE, 'Content-Disposition': `inline; filename="${name}"` });
  }
}
