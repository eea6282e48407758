import { Inject, Injectable } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import type { Response } from 'express';
import { SETTINGS } from '../../config/settings.module';
import type { Settings } from '../../config/settings';
import { ident, inList, sql } from '../../database/sql';
import type { Action, RequestContext } from '../context';
import { SessionService } from '../auth/session.service';
import { listPath, offers, ResourceDefinition } from '../resource/definition';
import type { Field } from '../resource/fields';
import { optionsMetadata, titleCase } from '../resource/options';
import { plainFilterFields } from '../resource/query/lookups';
import { first, pageLink, parsePage, Query, toQuery } from '../resource/query/params';
import { scopeConstraints, visibleRows } from '../resource/query/scope';
import { ResourceRegistry } from '../resource/registry';
import { ContextFactory } from './context.factory';
import { esc, page, renderJson } from './html';
import { baseUrl, externalPath, NkRequest } from './request';
import { SUPPORTED_VERSIONS } from './versioning';
import { withRepresentations } from './json-body';

type Info = Record<string, unknown>;
/** One field of OPTIONS metadata (`actions.POST` / `actions.PUT`). */
type FieldMeta = { type?: unknown; required?: boolean; read_only?: boolean; label?: string; help_text?: string; max_length?: number; min_value?: number; max_value?: number; choices?: { value: unknown; display: string }[] };

/** The OPTIONS types the generated HTML form has an input for; the others are written as raw JSON. */
const FORM_TYPES = new Set(['string', 'integer', 'decimal', 'boolean', 'choice', 'date', 'datetime', 'field']);
const PAGE_SIZES = [10, 50, 100, 250, 1000];

/** The resource a path names: its list, or one of its objects. */
interface Located {
  def: ResourceDefinition;
  id?: string;
}

/**
 * The browsable API: the HTML page of any JSON response, for a browser (`Accept: text/html` or
 * `?format=api`). Around the response (rendered with every URL a link) it puts what DRF's
 * browsable API gives: breadcrumbs, the request and response headers, format, depth, page size
 * and API version switches, pagination links, and on a model's list and detail URLs its filter
 * inputs and the forms to create, edit and delete (raw JSON with the OPTIONS metadata as a
 * guide, and a form generated for its simple fields). Everything is derived from the model's
 * definition and the user's permissions: a form is shown only where the user may do what it
 * does, and nothing is shown that the response (already scoped) does not hold. Forms POST with
 * a method override and the session's CSRF token (`method-override.ts`). Only HTML responses
 * come here: a JSON client costs nothing.
 */
@Injectable()
export class BrowsableApi {
  private readonly byListPath = new Map<string, ResourceDefinition>();

  constructor(
    registry: ResourceRegistry,
    private readonly contexts: ContextFactory,
    private readonly sessions: SessionService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {
    for (const def of registry.all()) this.byListPath.set(listPath(def), def);
  }

  /** The list or object a path names (app-relative, with its trailing slash), if it is a model's. */
  locate(path: string): Located | undefined {
    const def = this.byListPath.get(path);
    if (def) return { def };
    const m = /^(.*\/)([^/]+)\/$/.exec(path);
    const parent = m ? this.byListPath.get(m[1]) : undefined;
    return parent ? { def: parent, id: decodeURIComponent(m![2]) } : undefined;
  }

  /** The page of a response: `body` is what a JSON client would get, `res` carries the status and headers. */
  async render(req: NkRequest, res: Response, written: unknown): Promise<string> {
    const body = withRepresentations(written);
    const status = res.statusCode;
    const prefix = externalPath(req, '');
    const origin = baseUrl(req);
    // An error before authentication (no route): the header still shows who is logged in.
    let user = req.principal?.user ?? null;
    if (!req.principal) user = await this.sessions.userFor(req).catch(() => null);
    const csrf = req.principal?.via === 'session' || (!req.principal && user) ? this.sessions.csrfFor(req) : undefined;
    const q = toQuery(req.query);
    const located = this.locate(req.path);
    const ctx = this.contexts.create(req);
    const isList = !!located && !located.id;
    const isPage = isList && isPageBody(body);
    const title = located ? titleCase(located.id ? located.def.verboseName : located.def.verboseNamePlural) : titleOf(req.path);
    const here = externalPath(req, req.path);
    const parts: string[] = [crumbs(req.path, prefix)];
    parts.push(`<h1>${esc(status >= 400 ? `${title}: error ${status}` : title)}</h1>`);
    if (located?.def.description && !located.id) parts.push(`<p class="description">${esc(located.def.description)}</p>`);
    parts.push(this.switches(here, q, ctx.apiVersion, !!located && req.method === 'GET', isPage));
    if (isPage && status < 400) parts.push(filtersForm(here, q, plainFilterFields(ctx, located!.def)));
    parts.push(requestBlock(req.method, externalPath(req, req.originalUrl), status, res));
    if (isPage) parts.push(this.pagination(body as Info, q));
    parts.push(`<pre class="response">${body === undefined ? '' : renderJson(body, origin)}</pre>`);
    if (located && req.principal?.via === 'session' && csrf && status < 500) parts.push(await this.writeForms(req, ctx, located, body, status, csrf));
    return page(parts.join('\n'), { title, prefix, username: user?.username, csrf, apiVersion: ctx.apiVersion });
  }

  private switches(here: string, q: Query, version: string, resource: boolean, list: boolean): string {
    const link = (label: string, key: string, value: string, current: boolean) =>
      current ? `<span class="current">${esc(label)}</span>` : `<a href="${esc(pageLink(here, q, { [key]: value, ...(key === 'limit' ? { offset: null } : {}) }))}">${esc(label)}</a>`;
    const groups = [`<span><b>Format</b>${link('api', 'format', 'api', true)}${link('json', 'format', 'json', false)}${resource ? link('csv', 'format', 'csv', false) : ''}</span>`];
    if (resource) {
      const depth = first(q, 'depth') ?? '0';
      groups.push(`<span><b>Depth</b>${[0, 1, 2, 3].map((d) => link(String(d), 'depth', String(d), depth === String(d))).join('')}</span>`);
    }
    if (list) {
      const size = parsePage(q, this.settings).limit;
      const max = this.settings.MAX_PAGE_SIZE;
      const sizes = PAGE_SIZES.filter((n) => !max || n <= max);
      groups.push(`<span><b>Page size</b>${sizes.map((n) => link(String(n), 'limit', String(n), size === n)).join('')}</span>`);
    }
    groups.push(`<span><b>API version</b>${SUPPORTED_VERSIONS.map((v) => link(v, 'api_version', v, v === version)).join('')}</span>`);
    return `<nav class="switches">${groups.join('')}</nav>`;
  }

  private pagination(body: Info, q: Query): string {
    const { offset } = parsePage(q, this.settings);
    const count = Number(body.count);
    const shown = (body.results as unknown[]).length;
    const range = shown ? `${offset + 1}–${offset + shown} of ${count}` : `0 of ${count}`;
    const link = (url: unknown, label: string, rel: string) => (typeof url === 'string' ? `<a rel="${rel}" href="${esc(url)}">${label}</a>` : `<span>${label}</span>`);
    return `<nav class="pages">${link(body.previous, '« Previous', 'prev')}<span class="range">${range}</span>${link(body.next, 'Next »', 'next')}</nav>`;
  }

  /** The forms of a model's list (create) or object (edit, delete), as far as the user may use them. */
  private async writeForms(req: NkRequest, ctx: RequestContext, at: Located, body: unknown, status: number, csrf: string): Promise<string> {
    const { def, id } = at;
    const submitted = req.form;
    const action = `${externalPath(req, req.path)}`;
    const hidden = `<input type="hidden" name="csrfmiddlewaretoken" value="${esc(csrf)}">`;
    const out: string[] = [];
    if (!id) {
      const meta = ((await optionsMetadata(ctx, def, false)).actions as Info | undefined)?.POST as Record<string, FieldMeta> | undefined;
      if (!meta) return '';
      const raw = submitted?.content ?? JSON.stringify(createTemplate(meta), null, 4);
      const values = submitted?.fields ? Object.fromEntries(submitted.fields) : {};
      out.push(`<h2>Create ${esc(def.verboseName)}</h2>`);
      out.push(rawForm(action, hidden, raw, ['POST'], !submitted?.fields));
      out.push(fieldsForm(action, hidden, meta, values, 'POST', !!submitted?.fields));
      out.push(metadataTable(meta));
      return `<section class="write">${out.join('\n')}</section>`;
    }
    // An object's forms: only for the object the user sees (a 2xx with it, or the form that failed on it).
    const object = status < 300 && isObject(body) && String((body as Info).id) === id ? (body as Info) : null;
    if (!object && !(submitted && status === 400)) return '';
    const canChange = offers(def, 'update') && (await this.permits(ctx, def, 'change', id));
    const canDelete = offers(def, 'delete') && (await this.permits(ctx, def, 'delete', id));
    if (canChange) {
      const meta = ((await optionsMetadata(ctx, def, true)).actions as Info | undefined)?.PUT as Record<string, FieldMeta> | undefined;
      if (meta) {
        const current = object ? editValues(meta, object) : {};
        const raw = submitted?.content ?? JSON.stringify(current, null, 4);
        const values = submitted?.fields ? Object.fromEntries(submitted.fields) : textValues(current);
        out.push(`<h2>Edit ${esc(def.verboseName)}</h2>`);
        out.push(rawForm(action, hidden, raw, ['PUT', 'PATCH'], !submitted?.fields));
        out.push(fieldsForm(action, hidden, meta, values, 'PATCH', !!submitted?.fields));
        out.push(metadataTable(meta));
      }
    }
    if (canDelete) {
      out.push(
        `<details class="delete"><summary>Delete this ${esc(def.verboseName)}</summary><form method="post" action="${esc(action)}">${hidden}<input type="hidden" name="_method" value="DELETE"><p>This cannot be undone.</p><button class="danger">DELETE</button></form></details>`,
      );
    }
    return out.length ? `<section class="write">${out.join('\n')}</section>` : '';
  }

  /** Whether the user may do `action` on this object (its permission constraints, when there are any). */
  private async permits(ctx: RequestContext, def: ResourceDefinition, action: Action, id: string): Promise<boolean> {
    const constraints = await scopeConstraints(ctx, def, action);
    if (constraints !== null && !constraints.length) return false;
    const rows = await visibleRows(ctx, ctx.db, def, 'p', action);
    if (!rows.restricted) return true;
    const found = await ctx.db.query(sql`SELECT ${ident('p', 'id')} AS ${ident('id')} ${rows.from(inList(ident('p', 'id'), [id]))}`);
    return found.length > 0;
  }
}

function titleOf(path: string): string {
  const parts = path.split('/').filter(Boolean);
  const last = parts.pop() ?? 'api';
  return last === 'api' ? 'API Root' : titleCase(last.replace(/-/g, ' '));
}

const isObject = (v: unknown): v is Info => !!v && typeof v === 'object' && !Array.isArray(v);
const isPageBody = (v: unknown): boolean => isObject(v) && Array.isArray(v.results) && 'count' in v;

/** Links to each step of the path: API Root › dcim › locations › <id>. */
function crumbs(path: string, prefix: string): string {
  const parts = path.split('/').filter(Boolean);
  const links: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const href = `${prefix}/${parts.slice(0, i + 1).join('/')}/`;
    const label = i === 0 && parts[0] === 'api' ? 'API Root' : decodeURIComponent(parts[i]);
    links.push(i === parts.length - 1 ? `<span>${esc(label)}</span>` : `<a href="${esc(href)}">${esc(label)}</a>`);
  }
  return `<nav class="crumbs">${links.join(' › ')}</nav>`;
}

function requestBlock(method: string, path: string, status: number, res: Response): string {
  const lines = [`<b>${esc(method)} ${esc(path)}</b>`, `HTTP ${status} ${esc(STATUS_CODES[status] ?? '')}`];
  for (const h of ['Allow', 'API-Version', 'Vary']) {
    const v = res.getHeader(h);
    if (v !== undefined) lines.push(`<b>${h}:</b> ${esc(String(v))}`);
  }
  lines.push('<b>Content-Type:</b> application/json');
  return `<pre class="req">${lines.join('\n')}</pre>`;
}

/** The list's filters: `q` and each filterable field's plain lookup; other parameters carried along. */
function filtersForm(here: string, q: Query, fields: Field[]): string {
  const keep = ['depth', 'limit', 'format', 'api_version', 'sort']
    .flatMap((k) => (q.get(k) ?? []).map((v) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`))
    .join('');
  const value = (k: string) => q.get(k)?.[0] ?? '';
  const inputs = [`<label>Search<input name="q" type="search" value="${esc(value('q'))}"></label>`];
  for (const f of fields) {
    const label = esc(titleCase((f.label ?? f.name).replace(/_/g, ' ')));
    const choices = f.kind === 'scalar' ? (f.choices ?? (f.type === 'boolean' ? [['true', 'Yes'], ['false', 'No']] : null)) : null;
    if (choices) {
      const opts = [['', '—'], ...choices].map(([v, l]) => `<option value="${esc(String(v))}"${String(v) === value(f.name) ? ' selected' : ''}>${esc(String(l))}</option>`).join('');
      inputs.push(`<label>${label}<select name="${esc(f.name)}">${opts}</select></label>`);
    } else {
      const hint = f.kind === 'scalar' ? '' : ' placeholder="ID or name"';
      inputs.push(`<label>${label}<input name="${esc(f.name)}" value="${esc(value(f.name))}"${hint}></label>`);
    }
  }
  const active = fields.some((f) => q.has(f.name)) || q.has('q');
  return `<details class="filters"${active ? ' open' : ''}><summary>Filters</summary><form method="get" action="${esc(here)}">${keep}<div class="grid">${inputs.join('')}</div><div class="actions"><button>Apply filters</button><a href="${esc(here)}">Clear</a></div></form></details>`;
}

/** The raw-content form: a JSON (or CSV) body and a button per method. */
function rawForm(action: string, hidden: string, content: string, methods: string[], open: boolean): string {
  const buttons = methods.map((m) => `<button name="_method" value="${m}">${m}</button>`).join('');
  return `<details class="raw"${open ? ' open' : ''}><summary>Raw data</summary><form method="post" action="${esc(action)}">${hidden}
<label>Media type <select name="_content_type"><option value="application/json">application/json</option><option value="text/csv">text/csv</option></select></label>
<label>Content<textarea name="_content" rows="${Math.min(24, Math.max(6, content.split('\n').length + 1))}" spellcheck="false">${esc(content)}</textarea></label><div class="actions">${buttons}</div></form></details>`;
}

/** The generated form: an input per writable simple field (the rest is written as raw data). */
function fieldsForm(action: string, hidden: string, meta: Record<string, FieldMeta>, values: Record<string, string>, method: string, open: boolean): string {
  const inputs: string[] = [];
  for (const [name, m] of Object.entries(meta)) {
    if (m.read_only || !FORM_TYPES.has(String(m.type)) || name === 'id') continue;
    const v = values[name] ?? '';
    const label = `${esc(m.label ?? name)}${m.required ? ' <span class="req-mark">*</span>' : ''}`;
    const help = m.help_text ? `<span class="help">${esc(m.help_text)}</span>` : '';
    const n = esc(name);
    let input: string;
    if (m.type === 'choice' || m.type === 'boolean') {
      const choices = m.type === 'boolean' ? [{ value: 'true', display: 'Yes' }, { value: 'false', display: 'No' }] : (m.choices ?? []);
      const opts = [{ value: '', display: '—' }, ...choices].map((c) => `<option value="${esc(String(c.value))}"${String(c.value) === v ? ' selected' : ''}>${esc(c.display)}</option>`).join('');
      input = `<select name="${n}">${opts}</select>`;
    } else if (m.type === 'integer') {
      const bounds = `${m.min_value !== undefined ? ` min="${m.min_value}"` : ''}${m.max_value !== undefined ? ` max="${m.max_value}"` : ''}`;
      input = `<input name="${n}" type="number" step="1"${bounds} value="${esc(v)}">`;
    } else if (m.type === 'date') {
      input = `<input name="${n}" type="date" value="${esc(v)}">`;
    } else {
      const extra = m.type === 'field' ? ' placeholder="ID or name"' : m.type === 'datetime' ? ' placeholder="YYYY-MM-DDThh:mm:ssZ"' : m.max_length ? ` maxlength="${m.max_length}"` : '';
      input = `<input name="${n}" value="${esc(v)}"${extra}>`;
    }
    inputs.push(`<label>${label}${input}${help}</label>`);
  }
  if (!inputs.length) return '';
  return `<details class="html-form"${open ? ' open' : ''}><summary>HTML form</summary><form method="post" action="${esc(action)}">${hidden}<input type="hidden" name="_method" value="${method}"><div class="grid">${inputs.join('')}</div><div class="actions"><button>${method}</button></div></form></details>`;
}

/** The OPTIONS metadata of the writable fields, as a table: the guide to writing raw data. */
function metadataTable(meta: Record<string, FieldMeta>): string {
  const rows = Object.entries(meta)
    .filter(([, m]) => !m.read_only)
    .map(([name, m]) => {
      const notes = [m.max_length ? `max ${m.max_length} characters` : '', m.min_value !== undefined ? `min ${m.min_value}` : '', m.max_value !== undefined ? `max ${m.max_value}` : '', m.choices ? `one of ${m.choices.map((c) => String(c.value)).join(', ')}` : '', m.help_text ?? '']
        .filter(Boolean)
        .join('; ');
      return `<tr><td><code>${esc(name)}</code></td><td>${esc(typeof m.type === 'string' ? m.type : JSON.stringify(m.type ?? ''))}</td><td>${m.required ? 'yes' : ''}</td><td>${esc(notes)}</td></tr>`;
    })
    .join('');
  return `<details class="options"><summary>Fields (OPTIONS)</summary><table class="meta"><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr>${rows}</table></details>`;
}

/** The raw-data template of a create: each required field with an empty value of its type. */
function createTemplate(meta: Record<string, FieldMeta>): Info {
  const out: Info = {};
  for (const [name, m] of Object.entries(meta)) {
    if (m.read_only || !m.required) continue;
    out[name] = m.type === 'integer' || m.type === 'decimal' ? null : m.type === 'boolean' ? false : m.type === 'list' ? [] : m.type === 'json' ? {} : '';
  }
  return out;
}

/** An object's writable fields as a write takes them: related objects by id, choices by value. */
function editValues(meta: Record<string, FieldMeta>, object: Info): Info {
  const out: Info = {};
  for (const [name, m] of Object.entries(meta)) if (!m.read_only && name !== 'id' && name in object) out[name] = inputValue(object[name]);
  return out;
}

function inputValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(inputValue);
  if (isObject(v)) {
    if (typeof v.id === 'string' && ('url' in v || 'object_type' in v)) return v.id;
    const keys = Object.keys(v);
    if (keys.length === 2 && 'value' in v && 'label' in v) return v.value;
  }
  return v;
}

/** Input values as the generated form's text. */
function textValues(values: Info): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (v === null || typeof v !== 'object') out[k] = v === null || v === undefined ? '' : String(v);
  return out;
}
