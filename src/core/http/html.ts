/**
 * The HTML that browsers get: the page layout (header with the API version and the user, a
 * log-out form carrying the session's CSRF token), escaping, and a JSON value rendered with
 * every URL of this service a link. Pages load one stylesheet of this service and no script:
 * their CSP allows nothing else (no inline style or script, no other origin).
 */
export const HTML_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The pages' stylesheet, served at `/static/browsable.css` (LoginController). */
export const STYLESHEET = `body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#222}
header{display:flex;gap:1em;justify-content:space-between;align-items:center;background:#1d3557;color:#fff;padding:.5em 1em}
header a,header button{color:#fff}header form{margin:0;display:inline}header .version{opacity:.8;margin-left:1em}
header button{background:none;border:1px solid #fff;border-radius:3px;cursor:pointer}
main{padding:1em;max-width:1200px}h1{margin:.2em 0}h2{margin:1em 0 .3em;font-size:1.2em}
pre{background:#f6f8fa;padding:1em;overflow:auto}.k{color:#7b2c8b}.s{color:#1a6e1a}.n{color:#b35c00}a{color:#1d5fb4}.req{color:#555}
label{display:block;margin:.5em 0}input,select,textarea{font:inherit;padding:.25em}textarea{width:100%;box-sizing:border-box;font-family:ui-monospace,monospace}
button{font:inherit;cursor:pointer;padding:.2em .8em;border:1px solid #1d3557;border-radius:3px;background:#fff;color:#1d3557}
button.danger{border-color:#b00020;color:#b00020}.crumbs{color:#555;margin-bottom:.5em}.crumbs a{margin-right:.2em}
.switches{display:flex;flex-wrap:wrap;gap:.4em 1.5em;margin:.5em 0}.switches b{margin-right:.3em}.switches a,.switches span{margin-right:.4em}
.current{font-weight:bold;color:#222}.pages{display:flex;gap:1.5em;align-items:center;margin:.5em 0}
details{border:1px solid #d0d7de;border-radius:4px;padding:.4em .8em;margin:.5em 0}summary{cursor:pointer;font-weight:bold}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:0 1.5em}.grid label{margin:.3em 0}
.grid input,.grid select{width:100%;box-sizing:border-box}.help{color:#666;font-size:.9em}.req-mark{color:#b00020}
table.meta{border-collapse:collapse;font-size:.9em}table.meta td,table.meta th{border:1px solid #d0d7de;padding:.2em .5em;text-align:left;vertical-align:top}
.actions{display:flex;gap:.5em;margin:.5em 0}.alert{color:#b00020}.description{color:#555}
`;

export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Deeper than this, a value is shown as its JSON text (values stored before input depth was bounded). */
const MAX_RENDER_DEPTH = 50;

function render(v: unknown, indent: string, origin: string, depth = 0): string {
  if (v === null) return '<span class="n">null</span>';
  if (typeof v === 'object' && depth >= MAX_RENDER_DEPTH) return `<span class="s">${esc(jsonText(v))}</span>`;
  if (typeof v === 'string') {
    const s = esc(JSON.stringify(v));
    if (v.startsWith(origin + '/')) return `<a href="${esc(v)}">${s}</a>`;
    return `<span class="s">${s}</span>`;
  }
  if (typeof v === 'number' || typeof v === 'boolean') return `<span class="n">${esc(String(v))}</span>`;
  const inner = indent + '    ';
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return `[\n${v.map((x) => inner + render(x, inner, origin, depth + 1)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (!entries.length) return '{}';
  return `{\n${entries.map(([k, x]) => `${inner}<span class="k">${esc(JSON.stringify(k))}</span>: ${render(x, inner, origin, depth + 1)}`).join(',\n')}\n${indent}}`;
}

/** A JSON value as highlighted, escaped text; strings that are URLs under `origin` are links. */
export function renderJson(v: unknown, origin: string): string {
  return render(v, '', origin);
}

/** JSON text of a value, or a marker where it nests too deep for the runtime to write out. */
function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return '(nested too deeply to show)';
  }
}

export interface PageFrame {
  title: string;
  /** The external path prefix ('' or `/netkeel`): the page's own links start with it. */
  prefix: string;
  username?: string;
  /** The session's CSRF token, for the log-out form. */
  csrf?: string;
  /** The API version the page answers in. */
  apiVersion?: string;
}

/** A whole page around `body`: the header names the API version and the user (with a log-out form), or links to the login page. */
export function page(body: string, info: PageFrame): string {
  const prefix = esc(info.prefix);
  const user = info.username
    ? info.csrf
      ? `<form method="post" action="${prefix}/logout/"><input type="hidden" name="csrfmiddlewaretoken" value="${esc(info.csrf)}"><span class="user">${esc(info.username)}</span> <button>Log out</button></form>`
      : `<span class="user">${esc(info.username)}</span>`
    : `<a href="${prefix}/login/">Log in</a>`;
  const version = info.apiVersion ? `<span class="version">API ${esc(info.apiVersion)}</span>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${esc(info.title)} – netkeel</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="${prefix}/static/browsable.css"></head>
<body><header><span><a href="${prefix}/api/"><strong>netkeel</strong></a>${version}</span><span>${user}</span></header><main>${body}</main></body></html>`;
}
