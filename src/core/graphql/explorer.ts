import { esc } from '../http/html';
import { packageFile, pageFiles } from '../http/page-files';

/**
 * The interactive explorer a browser gets at GET /api/graphql/: GraphiQL (npm `graphiql`, with the
 * `react` and `react-dom` builds it runs on), served from node_modules, never a CDN. The page
 * has no inline script (its start-up is `explorer.js`), so it runs under SCRIPTED_PAGE_CSP.
 */

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
export const explorerFile = pageFiles({
  'react.production.min.js': { type: 'application/javascript', load: () => packageFile('react/umd/react.production.min.js') },
  'react-dom.production.min.js': { type: 'application/javascript', load: () => packageFile('react-dom/umd/react-dom.production.min.js') },
  'graphiql.min.js': { type: 'application/javascript', load: () => packageFile('graphiql/graphiql.min.js') },
  'graphiql.min.css': { type: 'text/css', load: () => packageFile('graphiql/graphiql.min.css') },
  'explorer.js': { type: 'application/javascript', load: () => START },
  'explorer.css': { type: 'text/css', load: () => STYLE },
});

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
