/**
 * The browsable API: a plain, readable HTML page of a JSON response, with every URL a link.
 * Everything is escaped; pages carry a strict Content-Security-Policy (no scripts at all).
 */
export const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

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

/** JSON text of a value, or a marker where it nests too deep for the runtime to write out. */
function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return '(nested too deeply to show)';
  }
}

export interface PageInfo {
  title: string;
  method: string;
  path: string;
  status: number;
  origin: string;
  /** The external path prefix ('' or `/netkeel`): the page's own links start with it. */
  prefix: string;
  username?: string;
  csrf?: string;
  headers: Record<string, string>;
}

export function page(body: string, info: Pick<PageInfo, 'title' | 'username' | 'csrf' | 'prefix'>): string {
  const prefix = esc(info.prefix);
  const user = info.username
    ? `<form method="post" action="${prefix}/logout/"><input type="hidden" name="csrfmiddlewaretoken" value="${esc(info.csrf ?? '')}">${esc(info.username)} <button>Log out</button></form>`
    : `<a href="${prefix}/login/">Log in</a>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(info.title)} – netkeel</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#222}header{display:flex;justify-content:space-between;align-items:center;background:#1d3557;color:#fff;padding:.5em 1em}
header a,header button{color:#fff}header form{margin:0}button{background:none;border:1px solid #fff;border-radius:3px;cursor:pointer}main{padding:1em}
pre{background:#f6f8fa;padding:1em;overflow:auto}.k{color:#7b2c8b}.s{color:#1a6e1a}.n{color:#b35c00}a{color:#1d5fb4}.req{color:#555}
label{display:block;margin:.5em 0}input{font:inherit;padding:.25em}</style></head>
<body><header><a href="${prefix}/api/"><strong>netkeel</strong></a>${user}</header><main>${body}</main></body></html>`;
}

export function apiPage(data: unknown, info: PageInfo): string {
  const headers = Object.entries(info.headers)
    .map(([k, v]) => `<b>${esc(k)}:</b> ${esc(v)}`)
    .join('\n');
  const body = `<h1>${esc(info.title)}</h1><pre class="req"><b>${esc(info.method)} ${esc(info.path)}</b>\nHTTP ${info.status}\n${headers}</pre><pre>${
    data === undefined ? '' : render(data, '', info.origin)
  }</pre>`;
  return page(body, info);
}
