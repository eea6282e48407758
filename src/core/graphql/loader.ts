import { GraphQLError } from 'graphql';
import type { Executor, Row } from '../../database/db';
import { ident, inList, Sql, sql } from '../../database/sql';
import type { RequestContext } from '../context';
import { objectType, ResourceDefinition } from '../resource/definition';
import { ValidationError } from '../resource/errors';
import type { GraphqlPart, ModelExtension } from '../resource/extension';
import type { ComputedField, ContentTypesField, ManyToManyField } from '../resource/fields';
import type { Query } from '../resource/query/params';
import { filterCompiler, visibleRows } from '../resource/query/scope';
import { orderBy } from '../resource/query/sort';
import type { RelatedSet } from '../resource/registry';
import { Obj, Representer } from '../resource/serialize/representer';

/** One object as GraphQL resolves it: its stored row, in the batch it was loaded with. */
export interface Node {
  readonly id: string;
  readonly row: Row;
  readonly batch: NodeBatch;
}

/** Rows of one model loaded by one statement: what is computed for a batch (display, custom fields, contexts) is computed once for all of them. */
export class NodeBatch {
  private readonly memo = new Map<string, Promise<unknown>>();
  constructor(
    readonly def: ResourceDefinition,
    readonly rows: Row[],
  ) {}

  once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let p = this.memo.get(key) as Promise<T> | undefined;
    if (!p) this.memo.set(key, (p = load()));
    return p;
  }
}

export type ListArgs = Record<string, unknown> & { limit?: number | null; offset?: number | null };

/** The column that names the parent of a row loaded through a link table. */
const PARENT = '__gql_parent';

/**
 * Loads what one GraphQL request asks for through the engine's scoped reads (DESIGN rule 2): every
 * statement reads a model's rows through `visibleRows`, so a hidden object is null or absent.
 * Nested loads are batched: every parent of a level asks within one turn of the event loop, and
 * one statement per related model (per relation and arguments, for lists) answers them all.
 * Every object loaded counts against the request's budget (GRAPHQL_MAX_OBJECTS).
 */
export class GraphqlLoader {
  private objects = 0;
  private readonly queues = new Map<string, { items: Set<string>; waiters: { item: string; resolve: (v: unknown) => void; reject: (e: unknown) => void }[] }>();

  constructor(
    readonly ctx: RequestContext,
    readonly maxObjects: number,
  ) {}

  get exec(): Executor {
    return this.ctx.db;
  }

  /** Rows as nodes of one batch, counted against the budget. */
  private nodes(def: ResourceDefinition, rows: Row[]): Node[] {
    this.objects += rows.length;
    if (this.objects > this.maxObjects) throw tooMany(this.maxObjects);
    const batch = new NodeBatch(def, rows);
    return rows.map((row) => ({ id: String(row.id), row, batch }));
  }

  /** How many rows a statement may still return: one more than the budget left, to tell when it is passed. */
  private get room(): number {
    return Math.max(0, this.maxObjects - this.objects) + 1;
  }

  /** A model's list: its visible rows, filtered by the arguments as the REST query string would, in its default order. */
  async list(def: ResourceDefinition, args: ListArgs): Promise<Node[]> {
    const { limit, offset } = page(args);
    const [visible, filters] = await Promise.all([visibleRows(this.ctx, this.exec, def, 't'), this.filters(def, args, 't')]);
    const take = Math.min(limit ?? Infinity, this.room);
    const rows = await this.exec.query(sql`SELECT t.* ${visible.from(filters)} ORDER BY ${await orderBy(this.ctx, this.exec, def, new Map(), 't')} LIMIT ${take} OFFSET ${offset}`);
    return this.nodes(def, rows);
  }

  /** One object by id, if the requester may view it. */
  async single(def: ResourceDefinition, id: string): Promise<Node | null> {
    if (!UUID.test(id)) return null;
    const visible = await visibleRows(this.ctx, this.exec, def, 't');
    const rows = await this.exec.query(sql`SELECT t.* ${visible.from(sql`${ident('t', 'id')} = ${id.toLowerCase()}`)}`);
    return this.nodes(def, rows)[0] ?? null;
  }

  /** The object a foreign key points at, or null when the requester may not view it: one statement per model for a whole level. */
  related(target: ResourceDefinition, id: string): Promise<Node | null> {
    return this.enqueue(`fk:${objectType(target)}`, id, async (ids) => {
      const visible = await visibleRows(this.ctx, this.exec, target, 'n');
      const rows = await this.exec.query(sql`SELECT n.* ${visible.from(inList(ident('n', 'id'), ids))}`);
      return new Map(this.nodes(target, rows).map((n) => [n.id, n]));
    }).then((n) => (n as Node | undefined) ?? null);
  }

  /** The visible objects a many-to-many field links to, filtered: one statement per field and arguments for a whole level. */
  many(owner: ResourceDefinition, f: ManyToManyField, parent: Node, args: ListArgs): Promise<Node[]> {
    const target = f.target();
    const disc = f.through.discriminator ? sql` AND ${ident('l', f.through.discriminator)} = ${objectType(owner)}` : sql``;
    return this.linked(`m2m:${objectType(owner)}.${f.name}`, target, parent, args, f.through.table, f.through.source, f.through.target, disc);
  }

  /** The visible objects that point here through a foreign key or a many-to-many field (a reverse relation), filtered. */
  reverse(rel: RelatedSet, parent: Node, args: ListArgs): Promise<Node[]> {
    const f = rel.field;
    const key = `rev:${objectType(rel.def)}.${f.name}`;
    if (f.kind === 'm2m') return this.linked(key, rel.def, parent, args, f.through.table, f.through.target, f.through.source, sql``);
    return this.grouped(key, parent, args, async (ids) => {
      const [visible, filters] = await Promise.all([visibleRows(this.ctx, this.exec, rel.def, 'x'), this.filters(rel.def, args, 'x')]);
      const rows = await this.exec.query(
        sql`SELECT x.* ${visible.from(inList(ident('x', f.column), ids), filters)} ORDER BY ${await orderBy(this.ctx, this.exec, rel.def, new Map(), 'x')} LIMIT ${this.room}`,
      );
      return { def: rel.def, rows, parentOf: (r: Row) => String(r[f.column]) };
    });
  }

  /** Objects linked through a link table: `from` holds the parent's id, `to` the object's. */
  private linked(key: string, target: ResourceDefinition, parent: Node, args: ListArgs, table: string, from: string, to: string, extra: Sql): Promise<Node[]> {
    return this.grouped(key, parent, args, async (ids) => {
      const [visible, filters] = await Promise.all([visibleRows(this.ctx, this.exec, target, 'x'), this.filters(target, args, 'x')]);
      const rows = await this.exec.query(
        sql`SELECT ${ident('l', from)} AS ${ident(PARENT)}, x.* FROM ${ident(table)} l ${visible.join(sql`${ident('x', 'id')} = ${ident('l', to)}`)} WHERE ${inList(ident('l', from), ids)}${extra} AND ${filters} ORDER BY ${await orderBy(this.ctx, this.exec, target, new Map(), 'x')} LIMIT ${this.room}`,
      );
      return { def: target, rows, parentOf: (r: Row) => String(r[PARENT]) };
    });
  }

  /** A list per parent, loaded for every parent of the level at once; `limit`/`offset` apply to each parent's list. */
  private grouped(key: string, parent: Node, args: ListArgs, load: (ids: string[]) => Promise<{ def: ResourceDefinition; rows: Row[]; parentOf: (r: Row) => string }>): Promise<Node[]> {
    const { limit, offset } = page(args);
    return this.enqueue(`${key}:${JSON.stringify(args)}`, parent.id, async (ids) => {
      const { def, rows, parentOf } = await load(ids);
      const out = new Map<string, Node[]>();
      for (const n of this.nodes(def, rows)) {
        const p = parentOf(n.row);
        const list = out.get(p);
        if (list) list.push(n);
        else out.set(p, [n]);
      }
      return out;
    }).then((list) => ((list as Node[] | undefined) ?? []).slice(offset, limit === undefined ? undefined : offset + limit));
  }

  /** The content types (`app_label.model`) of a content-types field. */
  contentTypes(f: ContentTypesField, parent: Node): Promise<string[]> {
    return this.enqueue(`ct:${f.through.table}`, parent.id, async (ids) => {
      const links = await this.exec.query(
        sql`SELECT ${ident(f.through.source)} AS src, ${ident('content_type')} AS ct FROM ${ident(f.through.table)} WHERE ${inList(ident(f.through.source), ids)} ORDER BY ${ident('content_type')}`,
      );
      const out = new Map<string, string[]>();
      for (const l of links) out.set(String(l.src), [...(out.get(String(l.src)) ?? []), String(l.ct)]);
      return out;
    }).then((v) => (v as string[] | undefined) ?? []);
  }

  /** The REST representation of a node at depth 0 (display, natural_slug): made once for its whole batch, when a field asks for it. */
  async representation(n: Node): Promise<Obj> {
    const reps = await n.batch.once('rep', async () => {
      const list = await new Representer(this.ctx, this.exec).represent(n.batch.def, n.batch.rows, { depth: 0, excludeM2m: true, include: new Set() });
      return new Map(list.map((o) => [String(o.id), o]));
    });
    return reps.get(n.id) ?? {};
  }

  /** A computed field with a batch load (utilization): once for the batch. */
  async computed(n: Node, f: ComputedField): Promise<unknown> {
    const values = await n.batch.once(`computed:${f.name}`, () => f.load!(n.batch.rows, this.ctx, this.exec));
    return values.get(n.id) ?? null;
  }

  /** What an extension writes on a node's representation (custom fields, a rendered config context): loaded once for the batch. */
  async extension(n: Node, ext: ModelExtension, index: number): Promise<Record<string, unknown>> {
    const part = ext.represent!;
    const written = await n.batch.once(`ext:${index}`, async () => {
      const x = { ctx: this.ctx, exec: this.exec, def: n.batch.def, depth: 0, nested: async () => new Map() };
      const loaded = part.load ? await part.load(x, n.batch.rows) : undefined;
      const out = new Map<string, Record<string, unknown>>();
      for (const row of n.batch.rows) {
        const o: Record<string, unknown> = {};
        part.write(o, row, this.ctx.detailUrl(n.batch.def, String(row.id)), loaded);
        out.set(String(row.id), o);
      }
      return out;
    });
    return written.get(n.id) ?? {};
  }

  /** The GraphQL part of each extension a model takes (extension, its index, part). */
  async parts(def: ResourceDefinition): Promise<{ ext: ModelExtension; index: number; part: GraphqlPart }[]> {
    const out: { ext: ModelExtension; index: number; part: GraphqlPart }[] = [];
    const taken = this.ctx.registry.extensionsOf(def);
    for (let i = 0; i < taken.length; i++) {
      const g = taken[i].represent?.graphql;
      if (g) out.push({ ext: taken[i], index: i, part: await g({ ctx: this.ctx, exec: this.exec, def }) });
    }
    return out;
  }

  /** The filter arguments as the REST query string's filters: the same compiler, the same 400 messages (as a GraphQL error). */
  private async filters(def: ResourceDefinition, args: ListArgs, alias: string): Promise<Sql> {
    const q: Query = new Map();
    for (const [k, v] of Object.entries(args)) {
      if (k === 'limit' || k === 'offset' || v === null || v === undefined) continue;
      const list = (Array.isArray(v) ? v : [v]).filter((x) => x !== null && x !== undefined).map((x) => String(x));
      q.set(k === '_type' ? 'type' : k, list);
    }
    try {
      return await filterCompiler(this.ctx, this.exec).fromQuery(def, q, alias);
    } catch (e) {
      if (e instanceof ValidationError) throw new GraphQLError(JSON.stringify(e.errors), { extensions: { code: 'BAD_FILTER' } });
      throw e;
    }
  }

  /** Batches the asks of one turn of the event loop under a key: `run` answers all of them with one load. */
  private enqueue(key: string, item: string, run: (items: string[]) => Promise<Map<string, unknown>>): Promise<unknown> {
    let queue = this.queues.get(key);
    if (!queue) {
      this.queues.set(key, (queue = { items: new Set(), waiters: [] }));
      const q = queue;
      setImmediate(() => {
        this.queues.delete(key);
        run([...q.items]).then(
          (found) => q.waiters.forEach((w) => w.resolve(found.get(w.item))),
          (err) => q.waiters.forEach((w) => w.reject(err)),
        );
      });
    }
    queue.items.add(item);
    return new Promise((resolve, reject) => queue.waiters.push({ item, resolve, reject }));
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const tooMany = (max: number) =>
  new GraphQLError(`The query asks for more than ${max} objects (GRAPHQL_MAX_OBJECTS); narrow it with filters or limit.`, { extensions: { code: 'TOO_MANY_OBJECTS' } });

/** `limit`/`offset` of a list: whole numbers, at least 0. */
function page(args: ListArgs): { limit: number | undefined; offset: number } {
  const { limit, offset } = args;
  if ((limit !== null && limit !== undefined && limit < 0) || (offset !== null && offset !== undefined && offset < 0)) {
    throw new GraphQLError('limit and offset must be zero or more.', { extensions: { code: 'BAD_PAGE' } });
  }
  return { limit: limit ?? undefined, offset: offset ?? 0 };
}
