import type { Executor, Row } from '../../../database/db';
import { and, ident, inList, join, Sql, sql } from '../../../database/sql';
import type { RequestContext } from '../../context';
import { DisplayHelpers, objectType, ResourceDefinition } from '../definition';
import type { ModelExtension } from '../extension';
import type { ContentTypesField, Field, ForeignKeyField, GenericForeignKeyField, ManyToManyField, ReverseKey } from '../fields';
import { scopeCondition } from '../query/scope';
import { orderBy } from '../query/sort';
import { Ancestry, loadAncestry } from '../query/tree';
import { compileEncoder, Encoder, isPlain, ValueKind, withEncoder } from './json-encoder';
import { readScalar, slugify } from './values';
import { formatDateTime } from '../query/values';

export interface ReadOptions {
  depth: number;
  excludeM2m?: boolean;
  /** Opt-in extras: relationships, computed_fields, config_context. */
  include?: ReadonlySet<string>;
}

type Obj = Record<string, unknown>;

/** Prefix of the columns that carry count fields (Representer.pageExtras). */
export const COUNT_COLUMN = '__count_';
/** Prefix of the page query's columns that list many-to-many ids (Representer.pageExtras). */
export const M2M_COLUMN = '__m2m_';
/** Prefix of the page query's columns that list a reverse foreign key's ids (Representer.pageExtras). */
export const REVERSE_COLUMN = '__rev_';
/** Prefix of the page query's columns that carry the rows display uses (Representer.pageExtras). */
export const DISPLAY_COLUMN = '__display_';
/** The name a page statement gives its page's rows (Representer.pageExtras). */
export const PAGE_CTE = 'p';

/** Columns and the joins that compute them, added to a page statement (Representer.pageExtras). */
export interface PageExtras {
  columns: Sql[];
  joins: Sql[];
}

/**
 * A statement over a page: `rows` (a SELECT) named PAGE_CTE, then `select` from it with the
 * extras' joins and an ORDER BY (empty for none).
 */
export function withPage(rows: Sql, select: Sql, joins: Sql[], order: Sql): Sql {
  return sql`WITH ${ident(PAGE_CTE)} AS (${rows}) ${select} FROM ${ident(PAGE_CTE)}${joins.length ? sql` ${join(joins, ' ')}` : sql``}${order}`;
}

/** The ids of the page's rows, for the extras' grouped subqueries. */
const PAGE_IDS = sql`(SELECT ${ident('id')} FROM ${ident(PAGE_CTE)})`;

/** Everything loaded for one batch of rows of one model at one level. */
interface Batch {
  def: ResourceDefinition;
  rows: Row[];
  root: boolean;
  depth: number;
  ancestry?: Map<string, Ancestry>;
  displayRows: Map<string, Map<string, Row>>;
  /** fk field name -> id -> nested representation (only loaded when depth > 0). */
  nested: Map<string, Map<string, Obj>>;
  /**
   * fk field name -> id -> the reference shown for it: one object per related object and batch
   * (a page's 1,000 addresses name a handful of statuses and parents), never changed once made.
   */
  refs: Map<string, Map<string, Obj>>;
  /** The display helpers of the row being represented (one object per batch). */
  helpers?: RowHelpers;
  /** Slug parts of the related names and ancestors of this batch's natural slugs. */
  slugs: Map<unknown, string>;
  /** m2m field -> owner id -> list of items. */
  many: Map<string, Map<string, unknown[]>>;
  counts: Map<string, Map<string, number>>;
  /** Computed fields with a batch loader: field -> id -> value. */
  loaded: Map<string, Map<string, unknown>>;
  /** What each extension loaded for this batch (custom field definitions). */
  extended: Map<ModelExtension, unknown>;
  /** The extensions that show keys on this batch's representations. */
  extensions: ModelExtension[];
  /** The fields this representation shows, computed once per batch. */
  shown: Field[];
  /** Many-to-many fields shown after the timestamps (tags). */
  trailing: ManyToManyField[];
  listUrl: string;
  type: string;
  /** Every key of this batch's representations, in order (set by the first one made, when there are several). */
  template?: Obj;
  /** The JSON encoder of a root batch's representations (set with the template). */
  encode?: Encoder;
}

export const ref = (ctx: RequestContext, def: ResourceDefinition, id: string): Obj => ({
  id,
  object_type: objectType(def),
  url: `${ctx.listUrl(def)}${id}/`,
});

/**
 * Turns rows into API representations at a depth. Related data is loaded in one query per
 * related model per level, never per row (DESIGN rule 4); serialization itself is a pure
 * function of the definition, the loaded rows and the context (rule 5).
 */
export class Representer {
  constructor(
    private readonly ctx: RequestContext,
    private readonly exec: Executor,
  ) {}

  async represent(def: ResourceDefinition, rows: Row[], opts: ReadOptions): Promise<Obj[]> {
    const batch = await this.load(def, rows, opts.depth, true, opts);
    const out = rows.map((r) => this.serialize(batch, r, opts));
    return withEncoder(out, batch.encode);
  }

  /** Fields visible in the request's API version. */
  visible(f: Field): boolean {
    if (!f.versions) return true;
    const { min, max } = f.versions;
    if (min && !this.ctx.versionAtLeast(min)) return false;
    if (max && this.ctx.versionAtLeast(max) && this.ctx.apiVersion !== max) return false;
    return true;
  }

  /** Fields shown on read in the request's API version. */
  readable(f: Field): boolean {
    if (!this.visible(f)) return false;
    if (!f.readVersions) return true;
    const { min, max } = f.readVersions;
    if (min && !this.ctx.versionAtLeast(min)) return false;
    if (max && this.ctx.versionAtLeast(max) && this.ctx.apiVersion !== max) return false;
    return true;
  }

  private async load(def: ResourceDefinition, rows: Row[], depth: number, root: boolean, opts: ReadOptions): Promise<Batch> {
    const batch: Batch = {
      def,
      rows,
      root,
      depth,
      displayRows: new Map(),
      nested: new Map(),
      refs: new Map(),
      slugs: new Map(),
      many: new Map(),
      counts: new Map(),
      loaded: new Map(),
      extended: new Map(),
      extensions: this.ctx.registry.extensionsOf(def).filter((e) => e.represent && (!e.represent.include || (root && opts.include?.has(e.represent.include)))),
      shown: Object.values(def.fields).filter((f) => !f.writeOnly && !(f.kind === 'm2m' && f.trailing) && this.readable(f)),
      trailing: Object.values(def.fields).filter((f): f is ManyToManyField => f.kind === 'm2m' && !!f.trailing && !f.writeOnly && this.readable(f)),
      listUrl: this.ctx.listUrl(def),
      type: objectType(def),
    };
    if (!rows.length) return batch;
    const fields = Object.values(def.fields).filter((f) => this.readable(f));
    const jobs: Promise<unknown>[] = [];
    if (def.tree) {
      jobs.push(
        scopeCondition(this.ctx, this.exec, def, 'view', 'a')
          .then((visible) => loadAncestry(this.exec, def, rows, visible))
          .then((a) => (batch.ancestry = a)),
      );
    }
    for (const e of batch.extensions) {
      if (e.represent!.load) jobs.push(e.represent!.load({ ctx: this.ctx, exec: this.exec, def }, rows).then((v) => batch.extended.set(e, v)));
    }
    for (const use of displayUses(def)) {
      if (use.key in rows[0]) batch.displayRows.set(use.name, displayRowsOfPage(rows, use));
      else jobs.push(this.rowsById(use.target, ids(rows, use.field.column), use.columns).then((m) => batch.displayRows.set(use.name, m)));
    }
    // Foreign keys and generic foreign keys at depth > 0: one load per target model.
    if (depth > 0) {
      const byTarget = new Map<ResourceDefinition, { fields: ForeignKeyField[]; ids: Set<string> }>();
      for (const f of fields) {
        if (f.kind !== 'fk' || f.writeOnly) continue;
        const t = f.target();
        const entry = byTarget.get(t) ?? { fields: [], ids: new Set<string>() };
        entry.fields.push(f);
        rows.forEach((r) => r[f.column] && entry.ids.add(String(r[f.column])));
        byTarget.set(t, entry);
      }
      for (const [target, entry] of byTarget) {
        jobs.push(
          this.nestedObjects(target, [...entry.ids], depth - 1, opts).then((m) => entry.fields.forEach((f) => batch.nested.set(f.name, m))),
        );
      }
      for (const f of fields) {
        if (f.kind === 'gfk') jobs.push(this.genericNested(f, rows, depth - 1, opts).then((m) => batch.nested.set(f.name, m)));
      }
    }
    for (const f of fields) {
      if (f.kind !== 'computed' || (!root && f.nested === false)) continue;
      if (f.reverse) {
        // A reverse foreign key the page statement listed (pageExtras), or else loaded.
        const key = REVERSE_COLUMN + f.name;
        if (key in rows[0]) batch.loaded.set(f.name, this.refsFromIds(f.reverse.target(), rows, key));
        else jobs.push(this.reverseRefs(f.reverse, rows).then((m) => batch.loaded.set(f.name, m)));
      } else if (f.load) jobs.push(f.load(rows, this.ctx, this.exec).then((m) => batch.loaded.set(f.name, m)));
    }
    if (root) {
      for (const f of fields) {
        if ((f.kind === 'm2m' || f.kind === 'contentTypes') && !opts.excludeM2m && !f.writeOnly) {
          // Linked ids listed by the page query itself (pageExtras), or else loaded here.
          const key = M2M_COLUMN + f.name;
          if (f.kind === 'm2m' && key in rows[0]) jobs.push(this.manyFromIds(f, rows, key, depth, opts).then((m) => batch.many.set(f.name, m)));
          else jobs.push(this.loadMany(def, f, rows, depth, opts).then((m) => batch.many.set(f.name, m)));
        }
      }
      // Count fields: counted by the page query itself (pageExtras), or else here, all of
      // them in one statement through the same joins.
      const counted = fields.filter((f) => f.kind === 'count');
      if (counted.length) {
        const source = counted.some((f) => COUNT_COLUMN + f.name in rows[0]) ? Promise.resolve(rows) : this.countRows(def, rows);
        jobs.push(
          source.then((list) => {
            const byId = new Map(list.map((r) => [String(r.id), r]));
            // A counted model that is not part of this installation has no column: zero.
            for (const f of counted) batch.counts.set(f.name, new Map(rows.map((r) => [String(r.id), Number(byId.get(String(r.id))?.[COUNT_COLUMN + f.name] ?? 0)])));
          }),
        );
      }
    }
    await Promise.all(jobs);
    return batch;
  }

  /** Related rows for display (their id and `columns`): only those the requester may view (a hidden one lends no name). */
  private async rowsById(def: ResourceDefinition, idList: string[], columns: string[]): Promise<Map<string, Row>> {
    if (!idList.length) return new Map();
    const scope = await scopeCondition(this.ctx, this.exec, def, 'view', 'd');
    const list = await this.exec.query(
      sql`SELECT ${join(['id', ...columns].map((c) => ident('d', c)))} FROM ${ident(def.table)} d WHERE ${and([inList(ident('d', 'id'), idList), scope])}`,
    );
    return new Map(list.map((r) => [String(r.id), r]));
  }

  /** Nested representations of the visible objects among ids; invisible ones stay references. */
  private async nestedObjects(def: ResourceDefinition, idList: string[], depth: number, opts: ReadOptions): Promise<Map<string, Obj>> {
    if (!idList.length) return new Map();
    const scope = await scopeCondition(this.ctx, this.exec, def, 'view', 'n');
    const rows = await this.exec.query(sql`SELECT n.* FROM ${ident(def.table)} n WHERE ${and([inList(ident('n', 'id'), idList), scope])}`);
    const batch = await this.load(def, rows, depth, false, opts);
    return new Map(rows.map((r) => [String(r.id), this.serialize(batch, r, opts)]));
  }

  private async genericNested(f: GenericForeignKeyField, rows: Row[], depth: number, opts: ReadOptions): Promise<Map<string, Obj>> {
    const byType = new Map<string, Set<string>>();
    for (const r of rows) {
      if (!r[f.typeColumn] || !r[f.idColumn]) continue;
      const set = byType.get(r[f.typeColumn]) ?? new Set<string>();
      set.add(String(r[f.idColumn]));
      byType.set(r[f.typeColumn], set);
    }
    const out = new Map<string, Obj>();
    await Promise.all(
      [...byType].map(async ([type, set]) => {
        const def = this.ctx.registry.get(type);
        if (!def) return;
        const m = await this.nestedObjects(def, [...set], depth, opts);
        m.forEach((v, k) => out.set(`${type}:${k}`, { ...v, generic_foreign_key: true }));
      }),
    );
    return out;
  }

  /** A reverse foreign key's references for rows the page statement did not list them for, by row id. */
  private async reverseRefs(reverse: ReverseKey, rows: Row[]): Promise<Map<string, unknown[]>> {
    const target = reverse.target();
    const where = await this.reverseCondition(reverse, inList(ident('rl', reverse.column), rows.map((r) => r.id)));
    const list = await this.exec.query(
      sql`SELECT ${ident('rl', 'id')} AS id, ${ident('rl', reverse.column)} AS k FROM ${ident(target.table)} rl WHERE ${where} ORDER BY ${await orderBy(this.ctx, this.exec, target, new Map(), 'rl')}`,
    );
    const out = new Map<string, unknown[]>(rows.map((r) => [String(r.id), []]));
    for (const r of list) out.get(String(r.k))?.push(ref(this.ctx, target, String(r.id)));
    return out;
  }

  /**
   * The target rows (alias `rl`) of a reverse foreign key whose key is `among` the given rows',
   * within the requester's view. `IS NOT NULL` (which IN implies) lets the planner see how few
   * rows have the key at all (few addresses have a NAT inside): one index range instead of a
   * probe per row, and MariaDB then keeps to that index rather than the ordering one.
   */
  private async reverseCondition(reverse: ReverseKey, among: Sql): Promise<Sql> {
    const scope = await scopeCondition(this.ctx, this.exec, reverse.target(), 'view', 'rl');
    return and([sql`${ident('rl', reverse.column)} IS NOT NULL`, among, scope]);
  }

  /** References to `target`'s objects from the comma-joined ids the page query listed per row, by row id. */
  private refsFromIds(target: ResourceDefinition, rows: Row[], key: string): Map<string, unknown[]> {
    const out = new Map<string, unknown[]>();
    for (const r of rows) out.set(String(r.id), r[key] ? String(r[key]).split(',').map((id) => ref(this.ctx, target, id)) : []);
    return out;
  }

  /** Many-to-many items from the comma-joined ids the page query listed per row. */
  private async manyFromIds(f: ManyToManyField, rows: Row[], key: string, depth: number, opts: ReadOptions) {
    const target = f.target();
    if (depth === 0) return this.refsFromIds(target, rows, key);
    const lists = new Map<string, string[]>(rows.map((r) => [String(r.id), r[key] ? String(r[key]).split(',') : []]));
    const nested = depth > 0 ? await this.nestedObjects(target, [...new Set([...lists.values()].flat())], depth - 1, opts) : null;
    const out = new Map<string, unknown[]>();
    for (const [id, list] of lists) out.set(id, list.map((dst) => nested?.get(dst) ?? ref(this.ctx, target, dst)));
    return out;
  }

  private async loadMany(owner: ResourceDefinition, f: ManyToManyField | ContentTypesField, rows: Row[], depth: number, opts: ReadOptions) {
    const out = new Map<string, unknown[]>();
    rows.forEach((r) => out.set(String(r.id), []));
    const idList = rows.map((r) => r.id);
    if (f.kind === 'contentTypes') {
      const links = await this.exec.query(
        sql`SELECT ${ident(f.through.source)} AS src, ${ident('content_type')} AS ct FROM ${ident(f.through.table)} WHERE ${inList(ident(f.through.source), idList)} ORDER BY ${ident('content_type')}`,
      );
      links.forEach((l) => out.get(String(l.src))?.push(l.ct));
      return out;
    }
    const target = f.target();
    const disc = f.through.discriminator ? sql` AND ${ident('l', f.through.discriminator)} = ${objectType(owner)}` : sql``;
    const order = target.fields.name ? sql` ORDER BY ${ident('x', 'name')}` : sql``;
    const links = await this.exec.query(
      sql`SELECT ${ident('l', f.through.source)} AS src, ${ident('l', f.through.target)} AS dst FROM ${ident(f.through.table)} l JOIN ${ident(target.table)} x ON ${ident('x', 'id')} = ${ident('l', f.through.target)} WHERE ${inList(ident('l', f.through.source), idList)}${disc}${order}`,
    );
    const nested = depth > 0 ? await this.nestedObjects(target, [...new Set(links.map((l) => String(l.dst)))], depth - 1, opts) : null;
    for (const l of links) {
      const id = String(l.dst);
      out.get(String(l.src))?.push(nested?.get(id) ?? ref(this.ctx, target, id));
    }
    return out;
  }

  /**
   * What a root page's statement adds to compute the page's count fields, the rows its display
   * uses and (where the dialect can aggregate) its many-to-many and reverse foreign key id lists
   * itself, so a list costs no statement per such field: for each, a LEFT JOIN to the related
   * table or to one grouped subquery over the page's ids, and the columns it gives. The
   * statement names its page rows `p` (a CTE, PAGE_CTE). A grouped join costs the database a
   * fraction of a correlated subquery per row (a 1,000-row page: ~4 ms against ~10); a statement
   * after the page costs a round trip and an IN list of the page's ids (~3 ms of a 1,000-address page).
   */
  async pageExtras(def: ResourceDefinition, opts: ReadOptions): Promise<PageExtras> {
    const out = await this.countExtras(def);
    for (const use of displayUses(def)) {
      // PostgreSQL cuts longer names short: such a use is read by id instead.
      if ([use.key, ...use.keys].some((k) => k.length > 63)) continue;
      const j = `d${out.joins.length}`;
      const scope = await scopeCondition(this.ctx, this.exec, use.target, 'view', j);
      out.joins.push(sql`LEFT JOIN ${ident(use.target.table)} ${ident(j)} ON ${and([sql`${ident(j, 'id')} = ${ident(PAGE_CTE, use.field.column)}`, scope])}`);
      out.columns.push(sql`${ident(j, 'id')} AS ${ident(use.key)}`, ...use.columns.map((c, i) => sql`${ident(j, c)} AS ${ident(use.keys[i])}`));
    }
    for (const f of Object.values(def.fields)) {
      if (f.kind !== 'computed' || !f.reverse || !this.readable(f)) continue;
      const target = f.reverse.target();
      const agg = this.exec.dialect.listAgg(ident('rl', 'id'), await orderBy(this.ctx, this.exec, target, new Map(), 'rl'));
      if (!agg) break;
      const key = ident('rl', f.reverse.column);
      const where = await this.reverseCondition(f.reverse, sql`${key} IN ${PAGE_IDS}`);
      const j = `r${out.joins.length}`;
      out.joins.push(sql`LEFT JOIN (SELECT ${key} AS k, ${agg} AS v FROM ${ident(target.table)} rl WHERE ${where} GROUP BY ${key}) ${ident(j)} ON ${ident(j, 'k')} = ${ident(PAGE_CTE, 'id')}`);
      out.columns.push(sql`${ident(j, 'v')} AS ${ident(REVERSE_COLUMN + f.name)}`);
    }
    if (opts.excludeM2m) return out;
    for (const f of Object.values(def.fields)) {
      if (f.kind !== 'm2m' || f.writeOnly || !this.readable(f)) continue;
      const target = f.target();
      const th = f.through;
      const agg = this.exec.dialect.listAgg(ident('ml', th.target), target.fields.name ? ident('mx', 'name') : ident('mx', 'id'));
      if (!agg) return out;
      const disc = th.discriminator ? sql` AND ${ident('ml', th.discriminator)} = ${objectType(def)}` : sql``;
      const j = `m${out.joins.length}`;
      out.joins.push(
        sql`LEFT JOIN (SELECT ${ident('ml', th.source)} AS k, ${agg} AS v FROM ${ident(th.table)} ml JOIN ${ident(target.table)} mx ON ${ident('mx', 'id')} = ${ident('ml', th.target)} WHERE ${ident('ml', th.source)} IN ${PAGE_IDS}${disc} GROUP BY ${ident('ml', th.source)}) ${ident(j)} ON ${ident(j, 'k')} = ${ident(PAGE_CTE, 'id')}`,
      );
      out.columns.push(sql`${ident(j, 'v')} AS ${ident(M2M_COLUMN + f.name)}`);
    }
    return out;
  }

  private async countExtras(def: ResourceDefinition): Promise<PageExtras> {
    const out: PageExtras = { columns: [], joins: [] };
    for (const f of Object.values(def.fields)) {
      if (f.kind !== 'count' || !this.readable(f)) continue;
      const counted = this.ctx.registry.get(f.model);
      const via = counted?.fields[f.via];
      if (!counted || !via) continue;
      const scope = await scopeCondition(this.ctx, this.exec, counted, 'view', 'cc');
      let key: Sql;
      let from: Sql;
      if (via.kind === 'fk') {
        key = ident('cc', via.column);
        from = sql`${ident(counted.table)} cc`;
      } else if (via.kind === 'm2m') {
        const th = via.through;
        key = ident('cl', th.target);
        from = sql`${ident(th.table)} cl JOIN ${ident(counted.table)} cc ON ${ident('cc', 'id')} = ${ident('cl', th.source)}`;
      } else continue;
      const j = `c${out.joins.length}`;
      out.joins.push(
        sql`LEFT JOIN (SELECT ${key} AS k, COUNT(*) AS n FROM ${from} WHERE ${and([sql`${key} IN ${PAGE_IDS}`, scope])} GROUP BY ${key}) ${ident(j)} ON ${ident(j, 'k')} = ${ident(PAGE_CTE, 'id')}`,
      );
      out.columns.push(sql`COALESCE(${ident(j, 'n')}, 0) AS ${ident(COUNT_COLUMN + f.name)}`);
    }
    return out;
  }

  /** The count fields of rows read without them (a detail, a write's response). */
  private async countRows(def: ResourceDefinition, rows: Row[]): Promise<Row[]> {
    const { columns, joins } = await this.countExtras(def);
    if (!columns.length) return [];
    const ids = sql`SELECT t.${ident('id')} FROM ${ident(def.table)} t WHERE ${inList(ident('t', 'id'), rows.map((r) => r.id))}`;
    return this.exec.query(withPage(ids, sql`SELECT ${ident(PAGE_CTE, 'id')}, ${join(columns)}`, joins, sql``));
  }

  private serialize(b: Batch, row: Row, opts: ReadOptions): Obj {
    const { def } = b;
    const ctx = this.ctx;
    const id = String(row.id);
    const helpers = (b.helpers ??= new RowHelpers(b));
    helpers.row = row;
    helpers.ancestors = b.ancestry?.get(id)?.names ?? NO_ANCESTORS;
    const url = `${b.listUrl}${id}/`;
    // Built on a copy of the batch's template: an object that gains dozens of properties one by
    // one through computed keys turns into a slow dictionary (V8), which takes twice as long to
    // make and to encode as JSON. Every representation of a batch has the same keys in the same
    // order: whether a key is present depends only on the batch and the request, never on the row.
    const out: Obj = b.template ? { ...b.template } : {};
    out.id = id;
    out.object_type = b.type;
    out.display = def.tree ? [...helpers.ancestors, def.display(row, helpers)].join(' → ') : def.display(row, helpers);
    out.url = url;
    out.natural_slug = naturalSlug(def, row, helpers, ctx, b.slugs);
    if (def.tree) out.tree_depth = b.root ? (b.ancestry?.get(id)?.depth ?? 0) : null;
    for (const f of b.shown) {
      switch (f.kind) {
        case 'scalar':
          out[f.name] = readScalar(f, row[f.column]);
          break;
        case 'fk': {
          const v = row[f.column];
          if (v === null || v === undefined) out[f.name] = null;
          else {
            const key = String(v);
            out[f.name] = (b.depth > 0 && b.nested.get(f.name)?.get(key)) || batchRef(b, f, key, ctx);
          }
          break;
        }
        case 'gfk': {
          const type = row[f.typeColumn];
          const oid = row[f.idColumn];
          out[`${f.name}_type`] = type ?? null;
          out[`${f.name}_id`] = oid ? String(oid) : null;
          const target = type ? ctx.registry.get(type) : undefined;
          out[f.name] = !type || !oid ? null : (b.nested.get(f.name)?.get(`${type}:${oid}`) ?? (target ? ref(ctx, target, String(oid)) : null));
          break;
        }
        case 'm2m':
        case 'contentTypes':
          if (b.root && !opts.excludeM2m) {
            const list = b.many.get(f.name)?.get(id) ?? [];
            out[f.name] = f.kind === 'm2m' && f.single ? (list[0] ?? null) : list;
          }
          break;
        case 'count':
          if (b.root) out[f.name] = b.counts.get(f.name)?.get(id) ?? 0;
          break;
        case 'computed':
          if (b.root || f.nested !== false) out[f.name] = f.load || f.reverse ? (b.loaded.get(f.name)?.get(id) ?? null) : f.read(row, ctx);
          break;
        case 'composite':
          out[f.name] = f.read(row, ctx);
          break;
      }
    }
    out.created = formatDateTime(row.created);
    out.last_updated = formatDateTime(row.last_updated);
    if (b.root && !opts.excludeM2m) for (const f of b.trailing) out[f.name] = b.many.get(f.name)?.get(id) ?? [];
    // What the extensions the model takes show (notes_url, custom_fields, the opt-in blocks).
    for (const e of b.extensions) e.represent!.write(out, row, url, b.extended.get(e));
    // One object (a detail, a single write, a nested batch of one) has nothing to share them with.
    if (b.template || b.rows.length < 2) return out;
    b.template = Object.fromEntries(Object.keys(out).map((k) => [k, null]));
    if (b.root) b.encode = compileEncoder(Object.keys(out), this.valueKinds(b));
    return { ...out };
  }

  /**
   * What each key of a batch's representations holds, for its JSON encoder: the strings this
   * class builds from ids of typed uuid columns, URLs and timestamps need no escaping (a list URL
   * carrying the request's host is checked once), and a foreign key at depth 0 is a reference.
   */
  private valueKinds(b: Batch): Record<string, ValueKind> {
    const typed = this.exec.dialect.typedUuids;
    const urls = typed && isPlain(b.listUrl);
    const standard: Record<string, boolean> = {
      id: typed,
      object_type: isPlain(b.type),
      url: urls,
      created: true,
      last_updated: true,
    };
    const kinds: Record<string, ValueKind> = {};
    for (const e of b.extensions) for (const [key, k] of Object.entries(e.represent!.keys)) if (k.url) standard[key] = urls;
    // A model field of the same name (none today) would hold what its row holds: left to 'any'.
    for (const [key, plain] of Object.entries(standard)) if (plain && !(key in b.def.fields)) kinds[key] = 'plain';
    if (b.depth === 0 && typed) {
      for (const f of b.shown) {
        if (f.kind !== 'fk') continue;
        const target = f.target();
        if (isPlain(this.ctx.listUrl(target))) kinds[f.name] = { ref: objectType(target) };
      }
    }
    return kinds;
  }
}

/** A foreign key whose rows display uses, with the columns read and their names in a page statement. */
interface DisplayUse {
  name: string;
  field: ForeignKeyField;
  target: ResourceDefinition;
  /** The target's columns read besides its id. */
  columns: string[];
  /** The page statement's column of the target's id (null: no such object visible). */
  key: string;
  /** The page statement's columns of `columns`. */
  keys: string[];
}

const displayUsesOf = new WeakMap<ResourceDefinition, DisplayUse[]>();

/** `def.displayUses` with the columns each reads: as declared, and `name` for a natural key's foreign key (natural_slug shows it). */
function displayUses(def: ResourceDefinition): DisplayUse[] {
  let list = displayUsesOf.get(def);
  if (!list) {
    list = Object.entries(def.displayUses ?? {}).map(([name, declared]) => {
      const field = def.fields[name] as ForeignKeyField;
      const target = field.target();
      const columns = [...declared];
      const named = target.fields.name;
      if (def.naturalKey.includes(name) && named?.kind === 'scalar' && named.column === 'name' && !columns.includes('name')) columns.push('name');
      const key = DISPLAY_COLUMN + name;
      return { name, field, target, columns, key, keys: columns.map((c) => `${key}__${c}`) };
    });
    displayUsesOf.set(def, list);
  }
  return list;
}

/** The rows a display uses, from the columns a page statement joined in. */
function displayRowsOfPage(rows: Row[], use: DisplayUse): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const r of rows) {
    const id = r[use.key];
    if (id === null || id === undefined || out.has(String(id))) continue;
    const row: Row = { id };
    use.columns.forEach((c, i) => (row[c] = r[use.keys[i]]));
    out.set(String(id), row);
  }
  return out;
}

const NO_ANCESTORS: string[] = [];

/** What display and natural_slug read of the row being represented (set before each row). */
class RowHelpers implements DisplayHelpers {
  row: Row = {};
  ancestors: string[] = NO_ANCESTORS;
  constructor(private readonly b: Batch) {}

  related(name: string): Row | null {
    const f = this.b.def.fields[name] as ForeignKeyField;
    const v = this.row[f.column];
    return v ? (this.b.displayRows.get(name)?.get(String(v)) ?? null) : null;
  }
}

/** The batch's reference to the object `id` of foreign key `f`'s target. */
function batchRef(b: Batch, f: ForeignKeyField, id: string, ctx: RequestContext): Obj {
  let refs = b.refs.get(f.name);
  if (!refs) b.refs.set(f.name, (refs = new Map()));
  let r = refs.get(id);
  if (!r) refs.set(id, (r = ref(ctx, f.target(), id)));
  return r;
}

function ids(rows: Row[], column: string): string[] {
  return [...new Set(rows.map((r) => r[column]).filter(Boolean).map(String))];
}


/** A natural key value's slug and its separator; nothing for a missing value. */
const slugPart = (v: unknown): string => (v === null || v === undefined ? '' : `${slugify(v)}_`);

/** slugPart of a value that recurs across a batch (a related object's name, an ancestor's), kept in `memo`. */
function sharedSlugPart(v: unknown, memo: Map<unknown, string>): string {
  let part = memo.get(v);
  if (part === undefined) memo.set(v, (part = slugPart(v)));
  return part;
}

/**
 * The slugs of the natural key values (a tree: the name, then the ancestors from the nearest up),
 * each followed by `_`, then the first four characters of the id: a scalar as stored, a foreign
 * key by the target's name. Built as one string: a page makes one per object.
 */
function naturalSlug(def: ResourceDefinition, row: Row, h: DisplayHelpers, ctx: RequestContext, memo: Map<unknown, string>): string {
  const id = String(row.id);
  if (def.naturalKey.length === 1 && def.naturalKey[0] === 'id') return `${slugify(id)}_${id.slice(0, 4)}`;
  let out = '';
  if (def.tree) {
    out = slugPart(row.name);
    for (let i = h.ancestors.length - 1; i >= 0; i--) out += sharedSlugPart(h.ancestors[i], memo);
  } else {
    for (const name of def.naturalKey) {
      const f = def.fields[name];
      if (!f) out += slugPart(row[name]);
      else if (f.kind === 'fk') {
        const r = h.related(name);
        out += r ? sharedSlugPart(r.name ?? r.id, memo) : '';
      } else if (f.kind === 'composite' || f.kind === 'computed') out += slugPart(f.read(row, ctx));
      else if (f.kind === 'scalar') out += slugPart(row[f.column]);
    }
  }
  return out + id.slice(0, 4);
}
