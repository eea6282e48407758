import { esc } from './html';
import { packageFile, pageFiles, SCRIPTED_PAGE_CSP } from './page-files';

/** ReDoc's search index runs in a worker it starts from a blob. */
export const REDOC_CSP = `${SCRIPTED_PAGE_CSP}; worker-src 'self' blob:`;
export { SCRIPTED_PAGE_CSP as SWAGGER_CSP };

/**
 * Swagger UI's start-up (the page has no inline script): the document of the page's API
 * version, and every "Try it out" request sent as that version, with the token as the API
 * takes it (`Token <key>`, the prefix added where the user typed the key alone) and, under a
 * browser session, the CSRF token the API asks of unsafe methods.
 */
const SWAGGER_START = `(function () {
  var root = document.getElementById('swagger-ui');
  var version = root.getAttribute('data-version');
  function csrf() {
    var m = document.cookie.match(/(?:^|;\\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : null;
  }
  function header(headers, name) {
    for (var k in headers) if (k.toLowerCase() === name) return k;
    return null;
  }
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayOperationId: true,
    // A thousand operations: the page opens with the apps folded, each opened on a click.
    docExpansion: 'none',
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    requestInterceptor: function (req) {
      if (req.loadSpec) return req;
      var accept = header(req.headers, 'accept');
      var value = accept && req.headers[accept] !== '*/*' ? req.headers[accept] : 'application/json';
      if (!/version=/.test(value)) req.headers[accept || 'Accept'] = value.split(',').map(function (t) { return t.trim() + '; version=' + version; }).join(', ');
      var auth = header(req.headers, 'authorization');
      if (auth && !/^(Token|Basic|Bearer) /i.test(req.headers[auth])) req.headers[auth] = 'Token ' + req.headers[auth];
      if (req.method && !/^(GET|HEAD|OPTIONS)$/i.test(req.method) && csrf()) req.headers['X-CSRFToken'] = csrf();
      return req;
    },
  });
})();
`;

/** ReDoc's start-up: the document of the page's API version. */
const REDOC_START = `(function () {
  var root = document.getElementById('redoc');
  Redoc.init(root.getAttribute('data-url'), { disableSearch: true, generatedPayloadSamplesMaxDepth: 2, sortTagsAlphabetically: true }, root);
})();
`;

const STYLE = 'body { margin: 0; } .swagger-ui .topbar { display: none; }\n';

/** The pages' files (`/api/docs/static/<name>`): the packages' builds and the pages' own start-up. */
export const docsFile = pageFiles({
  'swagger-ui-bundle.js': { type: 'application/javascript', load: () => packageFile('swagger-ui-dist/swagger-ui-bundle.js') },
  'swagger-ui.css': { type: 'text/css', load: () => packageFile('swagger-ui-dist/swagger-ui.css') },
  // Its sidebar shows the vendor's logo from a CDN: never asked for (an empty source is no request).
  'redoc.standalone.js': { type: 'application/javascript', load: () => packageFile('redoc/bundles/redoc.standalone.js').replace('"https://cdn.redoc.ly/redoc/logo-mini.svg"', '""') },
  'swagger-init.js': { type: 'application/javascript', load: () => SWAGGER_START },
  'redoc-init.js': { type: 'application/javascript', load: () => REDOC_START },
  'docs.css': { type: 'text/css', load: () => STYLE },
});

/** The document's URL for an API version, under the external prefix. */
const documentUrl = (prefix: string, version: string) => `${prefix}/api/swagger.json?api_version=${encodeURIComponent(version)}`;

function page(title: string, prefix: string, body: string, styles: string[], scripts: string[]): string {
  const file = (name: string) => `${esc(prefix)}/api/docs/static/${name}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><link rel="icon" href="data:,">
${styles.map((s) => `<link rel="stylesheet" href="${file(s)}">`).join('')}</head>
<body>${body}
${scripts.map((s) => `<script src="${file(s)}"></script>`).join('\n')}
</body></html>
`;
}

/** Swagger UI for one API version; `prefix` is the external path of the app's root. */
export function swaggerPage(prefix: string, version: string): string {
  return page(
    `netkeel API ${version} · Swagger UI`,
    prefix,
    `<div id="swagger-ui" data-url="${esc(documentUrl(prefix, version))}" data-version="${esc(version)}">Loading…</div>`,
    ['swagger-ui.css', 'docs.css'],
    ['swagger-ui-bundle.js', 'swagger-init.js'],
  );
}

/** ReDoc for one API version. */
export function redocPage(prefix: string, version: string): string {
  return page(`netkeel API ${version} · ReDoc`, prefix, `<div id="redoc" data-url="${esc(documentUrl(prefix, version))}">Loading…</div>`, ['docs.css'], ['redoc.standalone.js', 'redoc-init.js']);
}
