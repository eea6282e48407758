import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { esc } from '../http/html';

/**
 * The interactive explorer a browser gets at GET /api/graphql/: GraphiQL (npm `graphiql`, with the
 * `react` and `react-dom` builds it runs on), served from node_modules, never a CDN. The page
 * has no inline script (its start-up is `explorer.js`), so it runs under a CSP that allows
 * scripts of this origin only.
 */
export const EXPLORER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The explorer's start-up: the endpoint from the page, the session's CSRF token on every query, `?query=` as the first query. */
const START = `(function () {
  var root = document.getElementById('graphiql');
  var endpoint = root.getAttribute('data-endpoint');
  var match = document.cookie.match(/(?:^|;\\s*)csrftoken=([^;]+)/);
  var headers = match ? { 'X-CSRFToken': decodeURIComponent(match[1]) } : {};
  var params = new URLSearchParams(window.location.search);
  var fetcher = GraphiQL.createFetcher({ url: endpoint, headers: headers });
  var props = { fetcher: fetcher, defaultEditorToolsVisibility: true };
  if (params.get('query')) props.query = params.get('query');
  if (params.get('variables')) props.variables = params.get('variables');
  ReactDOM.createRoot(root).render(React.createElement(GraphiQL, props));
})();
`;

const STYLE = 'html, body, #graphiql { height: 100%; margin: 0; width: 100%; overflow: hidden; }\n';

/** The files the page loads, by the name it asks for: a package file, or the page's own. */
const FILES: Record<string, { type: string; load: () => string }> = {
  'react.production.min.js': { type: 'application/javascript', load: () => pkg('react/umd/react.production.min.js') },
  'react-dom.production.min.js': { type: 'application/javascript', load: () => pkg('react-dom/umd/react-dom.production.min.js') },
  'graphiql.min.js': { type: 'application/javascript', load: () => pkg('graphiql/graphiql.min.js') },
  'graphiql.min.css': { type: 'text/css', load: () => pkg('graphiql/graphiql.min.css') },
  'explorer.js': { type: 'application/javascript', load: () => START },
  'explorer.css': { type: 'text/css', load: () => STYLE },
};

/** A file of an installed package, by its path in the package (their `exports` do not list the browser builds). */
function pkg(path: string): string {
  const name = path.split('/')[0];
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json')) || (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name) {
    if (dirname(dir) === dir) throw new Error(`The package ${name} is not installed`);
    dir = dirname(dir);
  }
  return readFileSync(join(dir, path.slice(name.length + 1)), 'utf8');
}
const loaded = new Map<string, string>();

/** One of the explorer's files (read once), or null for a name it does not have. */
export function explorerFile(name: string): { type: string; text: string } | null {
  if (!Object.hasOwn(FILES, name)) return null;
  const f = FILES[name];
  let text = loaded.get(name);
  if (text === undefined) loaded.set(name, (text = f.load()));
  return { type: f.type, text };
}

/** The explorer page: `prefix` is the external path of the app's root. */
export function explorerPage(prefix: string): string {
  const file = (name: string) => `${esc(prefix)}/api/graphql/static/${name}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>GraphiQL · netkeel</title>
<link rel="stylesheet" href="${file('graphiql.min.css')}"><link rel="stylesheet" href="${file('explorer.css')}"></head>
<body><div id="graphiql" data-endpoint="${esc(prefix)}/api/graphql/">Loading…</div>
<script src="${file('react.production.min.js')}"></script>
<script src="${file('react-dom.production.min.js')}"></script>
<script src="${file('graphiql.min.js')}"></script>
<script src="${file('explorer.js')}"></script>
</body></html>
`;
}
