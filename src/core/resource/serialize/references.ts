import type { Executor, Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import type { RequestContext } from '../../context';
import type { ResourceDefinition } from '../definition';
import type { Constraint } from '../fields';
import type { FilterCompiler } from '../query/filter-compiler';
import { filterCompiler, visibleRows } from '../query/scope';
import { isUuid, parseNaturalKey, parseUuid, UUID_RE, ValueError } from '../query/values';

/** How a client named a related object on write (spec 2.3). */
export type RefSpec =
  | { kind: 'id'; id: string }
  | { kind: 'attrs'; attrs: Constraint }
  | { kind: 'natural'; key: string; parts: (string | null)[] };

/** Keys of a representation that name no attribute to look an object up by (what extensions add is not a field either). */
const IGNORED_ATTRS = new Set(['display', 'object_type', 'url', 'natural_slug', 'created', 'last_updated', 'tree_depth', 'generic_foreign_key']);

/** Parses one reference; throws ValueError with the reference's message for junk. */
export function parseRef(target: ResourceDefinition, value: unknown): RefSpec {
  if (typeof value === 'string') {
    const s: string = value.trim();
    if (UUID_RE.test(s)) return { kind: 'id', id: parseUuid(s) };
    if (s.includes('/')) {
      const last = s.replace(/\/+$/, '').split('/').pop() ?? '';
      if (UUID_RE.test(last)) return { kind: 'id', id: parseUuid(last) };
      throw unrecognized(value);
    }
    if (!s) throw unrecognized(value);
    const parts = parseNaturalKey(s);
    return { kind: 'natural', key: s, parts };
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (o.id !== undefined && o.id !== null) {
      if (!isUuid(o.id)) throw new ValueError('Must be a valid UUID.');
      return { kind: 'id', id: parseUuid(o.id) };
    }
    if (typeof o.url === 'string') return parseRef(target, o.url);
    const attrs = flatten(o);
    for (const k of Object.keys(attrs)) {
      const head = k.split('__')[0];
      const f = target.fields[head];
      if (IGNORED_ATTRS.has(head) || (head !== 'pk' && !f) || (f?.kind === 'm2m' && f.trailing)) delete attrs[k];
    }
    if (!Object.keys(attrs).length) throw unrecognized(value);
    return { kind: 'attrs', attrs };
  }
  throw unrecognized(value);
}

function unrecognized(value: unknown): ValueError {
  return new ValueError(`Related objects must be referenced by ID or by dictionary of attributes. Received an unrecognized value: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}

/** {"location": {"name": "x", "parent": {"name": "y"}}} -> {"location__name": "x", "location__parent__name": "y"} */
function flatten(o: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries(o)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
      const inner = v as Record<string, unknown>;
      if (inner.id !== undefined && inner.id !== null) out[`${prefix}${k}`] = inner.id;
      else Object.assign(out, flatten(inner, `${prefix}${k}__`));
    } else out[`${prefix}${k}`] = v;
  }
  return out;
}

/** Python-style repr of lookup parameters, as the reference prints them in messages. */
export function pyRepr(o: Record<string, unknown>): string {
  const val = (v: unknown): string => {
    if (v === null || v === undefined) return 'None';
    if (v === true) return 'True';
    if (v === false) return 'False';
    if (typeof v === 'number') return String(v);
    if (Array.isArray(v)) return `[${v.map(val).join(', ')}]`;
    return `'${String(v).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  };
  return `{${Object.entries(o)
    .map(([k, v]) => `'${k}': ${k === 'pk' && typeof v === 'string' ? `UUID('${v}')` : val(v)}`)
    .join(', ')}}`;
}

/**
 * Resolves references to one target model in a batch: all plain ids in one statement, each
 * distinct attribute or natural-key lookup once. Only objects the requester may view, and that
 * the field's `limit` allows, are found (a hidden object is "not found", never "forbidden").
 */
export class ReferenceResolver {
  private readonly compiler: FilterCompiler;
  constructor(
    private readonly ctx: RequestContext,
    private readonly exec: Executor,
  ) {
    this.compiler = filterCompiler(ctx, exec);
  }

  /** Returns, per spec, the row or an error message. */
  async resolve(target: ResourceDefinition, specs: RefSpec[], limit?: Constraint): Promise<(Row | string)[]> {
    const visible = await visibleRows(this.ctx, this.exec, target, 'r');
    const limitSql = limit ? await this.compiler.fromConstraint(target, limit, 'r') : null;
    const ids = [...new Set(specs.filter((s): s is { kind: 'id'; id: string } => s.kind === 'id').map((s) => s.id))];
    const byId = new Map<string, Row>();
    if (ids.length) {
      const rows = await this.exec.query(sql`SELECT r.* ${visible.from(inList(ident('r', 'id'), ids), limitSql)}`);
      rows.forEach((r) => byId.set(String(r.id), r));
    }
    const lookups = new Map<string, Promise<Row[] | string>>();
    /** Looks up the rows a constraint finds, once per key (`copy`: the constraint copied first, a reference's attributes). */
    const find = (key: string, constraint: Constraint, copy = false): void => {
      if (!lookups.has(key)) {
        lookups.set(
          key,
          this.compiler
            .fromConstraint(target, copy ? { ...constraint } : constraint, 'r', 'reference')
            .then((where) => this.exec.query(sql`SELECT r.* ${visible.from(where, limitSql)} LIMIT 2`))
            .catch((e: unknown) => {
              if (e instanceof ValueError) return e.message;
              throw e;
            }),
        );
      }
    };
    // Each distinct attribute set or natural key is looked up once, all at the same time; every
    // spec is then answered from what was found, without a promise of its own (a bulk request
    // names its status or parent a thousand times).
    const naturalKeys = new Map<string, string | null>();
    const keys = specs.map((s): string | null => {
      if (s.kind === 'attrs') {
        // A reference's attributes are a map without a prototype (V8 keeps it as a dictionary, slow
        // to copy): copied once per distinct one, not for each of a bulk request's objects.
        const key = JSON.stringify(s.attrs);
        find(key, s.attrs, true);
        return key;
      }
      if (s.kind !== 'natural') return null;
      let key = naturalKeys.get(s.key);
      if (key === undefined) {
        const constraint = naturalKeyConstraint(target, s.parts);
        key = constraint ? `nk:${JSON.stringify(constraint)}` : null;
        if (constraint) find(key!, constraint);
        naturalKeys.set(s.key, key);
      }
      return key;
    });
    const found = new Map<string, Row[] | string>();
    await Promise.all([...lookups].map(async ([key, rows]) => found.set(key, await rows)));
    return specs.map((s, n): Row | string => {
      if (s.kind === 'id') return byId.get(s.id) ?? `Related object not found using the provided attributes: ${pyRepr({ pk: s.id })}`;
      const rows = keys[n] === null ? undefined : found.get(keys[n]!);
      if (s.kind === 'attrs') {
        if (typeof rows === 'string') return rows;
        if (!rows?.length) return `Related object not found using the provided attributes: ${pyRepr(s.attrs)}`;
        if (rows.length > 1) return `Multiple objects match the provided attributes: ${pyRepr(s.attrs)}`;
        return rows[0];
      }
      if (rows === undefined || typeof rows === 'string' || rows.length !== 1) return `Related object not found using provided composite-key: ${s.key}`;
      return rows[0];
    });
  }
}

/** Maps natural-key parts onto lookups: `name`, `parent__name`, ... for trees; padded with null. */
export function naturalKeyConstraint(def: ResourceDefinition, parts: (string | null)[]): Constraint | null {
  if (def.tree) {
    const c: Constraint = {};
    let path = '';
    parts.forEach((p, i) => {
      c[`${path}name`] = p;
      if (i < parts.length - 1) path += `${def.tree!.parent}__`;
    });
    c[`${path}${def.tree.parent}__isnull`] = true;
    if (parts.length === 1 && parts[0] === null) return null;
    return c;
  }
  const lookups = naturalKeyLookups(def);
  if (parts.length > lookups.length) return null;
  const c: Constraint = {};
  lookups.forEach((l, i) => (c[l] = parts[i] ?? null));
  return c;
}

export function naturalKeyLookups(def: ResourceDefinition, prefix = '', seen = new Set<ResourceDefinition>()): string[] {
  if (seen.has(def)) return [`${prefix}id`];
  seen.add(def);
  if (def.naturalKeyPaths) return def.naturalKeyPaths.map((p) => `${prefix}${p}`);
  return def.naturalKey.flatMap((name) => {
    const f = def.fields[name];
    if (f?.kind === 'fk') {
      const t = f.target();
      // `seen` holds the ancestors only (a cycle): a model reached again through a sibling (a template's device type's and module type's manufacturer) is named by its own key.
      return t.tree ? [`${prefix}${name}__name`] : naturalKeyLookups(t, `${prefix}${name}__`, new Set(seen));
    }
    return [`${prefix}${name}`];
  });
}
