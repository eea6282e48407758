import { randomUUID } from 'node:crypto';
import type { Executor, Row } from '../../database/db';
import { and, ident, inList, isTrue, join, or, param, raw, Sql, sql } from '../../database/sql';
import type { Dialect } from '../../database/dialect';
import type { Action, RequestContext } from '../context';
import { objectType, ResourceDefinition, WriteContext, WriteState } from './definition';
import type { ModelExtension } from './extension';
import { ConflictError, FieldErrors, PermissionDeniedError, ValidationError } from './errors';
import { ContentTypesField, Field, ForeignKeyField, GenericForeignKeyField, ManyToManyField } from './fields';
import { columnTypes, storedColumns } from './storage';
import { scopeCondition } from './query/scope';
import { descendantIds } from './query/tree';
import { isUuid, parseUuid, ValueError } from './query/values';
import { parseJsonObject } from './serialize/values';
import { parseRef, ReferenceResolver, RefSpec } from './serialize/references';
import { addError, defaultFor, label, NOT_NULL, parseCompositeInput, parseScalarInput, REQUIRED, writable } from './serialize/input';
import { append } from '../collections';

export type WriteMode = 'create' | 'replace' | 'patch';

interface PendingRef {
  field: ForeignKeyField | ManyToManyField | GenericForeignKeyField;
  target: ResourceDefinition;
  specs: RefSpec[];
  many: boolean;
  /** The attribute an unresolved reference is reported under (default: the field's name). */
  errorKey?: string;
}

interface Item {
  index: number;
  id: string;
  existing: Row | null;
  /** Column values the request sets. */
  set: Row;
  touched: Set<string>;
  refs: PendingRef[];
  related: Map<string, Row | null>;
  m2m: Map<string, string[]>;
  contentTypes: Map<string, string[]>;
  /** What the client sent under each extension's key (custom_fields), where it sent one. */
  extended: Map<ModelExtension, unknown>;
  errors: FieldErrors;
  /** Values after the write: existing merged with defaults and request values. */
  values: Row;
}

const INSERT_CHUNK = 500;

/**
 * The write half of the engine: parse -> resolve references -> validate -> model rules ->
 * save (batched statements) -> re-check the permission scope. Runs inside the caller's
 * transaction, so any failure leaves nothing behind.
 */
export class ResourceWriter {
  private readonly resolver: ReferenceResolver;
  private readonly w: WriteContext;

  constructor(
    private readonly ctx: RequestContext,
    private readonly exec: Executor,
  ) {
    this.resolver = new ReferenceResolver(ctx, exec);
    this.w = { ctx, exec };
  }

  /** Creates objects; returns their ids in input order. Errors: a list aligned with the input. */
  async create(def: ResourceDefinition, inputs: Record<string, unknown>[], listShaped: boolean): Promise<string[]> {
    let items = inputs.map((input, index) => this.parse(def, input, index, 'create', null));
    await this.prepare(def, items, 'create');
    // Objects that refer to others of the same batch (a location and its parent, in one import):
    // save those whose references resolve, then resolve the rest against them, wave by wave.
    // It all stays in the caller's transaction, so the batch is still whole or absent.
    const selfRefs = Object.values(def.fields).filter((f): f is ForeignKeyField => f.kind === 'fk' && f.target() === def).map((f) => f.name);
    const done: Item[] = [];
    while (selfRefs.length && items.length > 1) {
      const waitsForBatch = (i: Item) => Object.keys(i.errors).length > 0 && Object.keys(i.errors).every((k) => selfRefs.includes(k) && i.errors[k].every(isNotFound));
      const ready = items.filter((i) => !Object.keys(i.errors).length);
      const waiting = items.filter(waitsForBatch);
      if (!ready.length || !waiting.length || items.some((i) => Object.keys(i.errors).length && !waitsForBatch(i))) break;
      await this.save(def, ready, true);
      done.push(...ready);
      items = waiting.map((i) => this.parse(def, inputs[i.index], i.index, 'create', null));
      await this.prepare(def, items, 'create');
    }
    const all = [...done, ...items].sort((a, b) => a.index - b.index);
    this.throwIfInvalid(all, listShaped ? 'list' : 'single');
    await this.save(def, items, true);
    await this.recheck(def, all.map((i) => i.id), 'add');
    return all.map((i) => i.id);
  }

  /** Updates existing rows (already loaded within scope). */
  async update(def: ResourceDefinition, changes: { existing: Row; input: Record<string, unknown> }[], mode: 'replace' | 'patch'): Promise<string[]> {
    const items = changes.map((c, index) => this.parse(def, c.input, index, mode, c.existing));
    await this.prepare(def, items, mode);
    this.throwIfInvalid(items, 'first');
    await this.save(def, items, false);
    await this.recheck(def, items.map((i) => i.id), 'change');
    return items.map((i) => i.id);
  }

  private throwIfInvalid(items: Item[], shape: 'list' | 'single' | 'first'): void {
    const bad = items.filter((i) => Object.keys(i.errors).length);
    if (!bad.length) return;
    if (shape === 'list') throw new ValidationError(items.map((i) => i.errors));
    throw new ValidationError(bad[0].errors);
  }

  private visible(f: Field): boolean {
    if (!f.versions) return true;
    const { min, max } = f.versions;
    if (min && !this.ctx.versionAtLeast(min)) return false;
    if (max && this.ctx.versionAtLeast(max) && this.ctx.apiVersion !== max) return false;
    return true;
  }

  private parse(def: ResourceDefinition, input: Record<string, unknown>, index: number, mode: WriteMode, existing: Row | null): Item {
    const item: Item = {
      index,
      id: existing ? String(existing.id) : randomUUID(),
      existing,
      set: {},
      touched: new Set(),
      refs: [],
      related: new Map(),
      m2m: new Map(),
      contentTypes: new Map(),
      extended: new Map(),
      errors: {},
      values: {},
    };
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      item.errors.non_field_errors = [`Invalid data. Expected a dictionary, but got ${Array.isArray(input) ? 'list' : typeof input === 'string' ? 'str' : typeof input}.`];
      return item;
    }
    if (mode === 'create' && input.id !== undefined && input.id !== null) {
      if (isUuid(input.id)) item.id = parseUuid(input.id);
      else addError(item.errors, 'id', 'Must be a valid UUID.');
    }
    const full = mode !== 'patch';
    for (const f of Object.values(def.fields)) {
      if (!writable(f) || !this.visible(f)) continue;
      const keys = f.kind === 'gfk' ? [`${f.name}_type`, `${f.name}_id`, f.name] : [f.name];
      const present = keys.some((k) => k in input);
      if (!present) {
        const hasDefault = mode === 'create' && f.kind === 'fk' && !!f.default;
        if (full && f.required && !hasDefault) addError(item.errors, f.kind === 'gfk' ? `${f.name}_type` : f.name, REQUIRED);
        continue;
      }
      try {
        this.parseField(def, f, input, item);
      } catch (e) {
        if (e instanceof ValueError) addError(item.errors, f.name, e.message);
        else throw e;
      }
    }
    for (const e of this.ctx.registry.extensionsOf(def)) if (e.write && Object.hasOwn(input, e.write.key)) item.extended.set(e, input[e.write.key]);
    return item;
  }

  private parseField(def: ResourceDefinition, f: Field, input: Record<string, unknown>, item: Item): void {
    const value = input[f.name];
    const immutable = (f as { immutable?: string }).immutable;
    switch (f.kind) {
      case 'scalar': {
        const v = parseScalarInput(f, value);
        if (immutable && item.existing && !same(item.existing[f.column], v)) throw new ValueError(immutable);
        item.set[f.column] = v;
        item.touched.add(f.name);
        return;
      }
      case 'composite': {
        const cols = parseCompositeInput(f, value);
        if (immutable && item.existing && Object.entries(cols).some(([c, v]) => !same(item.existing![c], v))) throw new ValueError(immutable);
        Object.assign(item.set, cols);
        item.touched.add(f.name);
        return;
      }
      case 'fk': {
        item.touched.add(f.name);
        if (value === null || value === undefined || value === '') {
          if (!f.nullable) throw new ValueError(value === '' ? 'This field may not be blank.' : NOT_NULL);
          item.set[f.column] = null;
          item.related.set(f.name, null);
          return;
        }
        item.refs.push({ field: f, target: f.target(), specs: [parseRef(f.target(), value)], many: false });
        return;
      }
      case 'gfk': {
        item.touched.add(f.name);
        const type = input[`${f.name}_type`];
        const id = input[`${f.name}_id`];
        // The object itself may be named instead of its id, in any reference form (natural key,
        // attribute object, URL): the form a CSV export writes, `<name>_type` + natural key.
        const named = id === null || id === undefined ? input[f.name] : undefined;
        if ((type === null || type === undefined) && (id === null || id === undefined) && (named === null || named === undefined)) {
          if (!f.nullable) throw new ValueError(NOT_NULL);
          item.set[f.typeColumn] = null;
          item.set[f.idColumn] = null;
          return;
        }
        const target = typeof type === 'string' ? this.ctx.registry.get(type) : undefined;
        if (!target || (f.allowed && !f.allowed(target))) {
          addError(item.errors, `${f.name}_type`, typeof type === 'string' && /^\w+\.\w+$/.test(type) ? `Invalid content type: ${type}` : `Invalid value. Specify a content type as '<app_label>.<model_name>'.`);
          return;
        }
        if (named !== null && named !== undefined) {
          item.set[f.typeColumn] = objectType(target);
          item.refs.push({ field: f, target, specs: [parseRef(target, named)], many: false });
          return;
        }
        if (!isUuid(id)) {
          addError(item.errors, `${f.name}_id`, 'Must be a valid UUID.');
          return;
        }
        item.set[f.typeColumn] = objectType(target);
        item.refs.push({ field: f, target, specs: [{ kind: 'id', id: parseUuid(id) }], many: false, errorKey: `${f.name}_id` });
        return;
      }
      case 'm2m': {
        item.touched.add(f.name);
        if (f.single && Array.isArray(value)) throw new ValueError('Value must be passed directly (e.g. "foo": 123); do not use a list.');
        const list = value === null ? [] : Array.isArray(value) ? value : [value];
        const target = f.target();
        item.refs.push({ field: f, target, specs: list.map((v) => parseRef(target, v)), many: true });
        return;
      }
      case 'contentTypes': {
        item.touched.add(f.name);
        const list = value === null ? [] : Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : null;
        if (!list) throw new ValueError('Expected a list of items but got type "' + typeof value + '".');
        const out: string[] = [];
        for (const v of list) {
          const t = typeof v === 'string' ? this.ctx.registry.get(v) : undefined;
          if (!t || !f.allowed(t)) {
            throw new ValueError(typeof v === 'string' && /^\w+\.\w+$/.test(v) ? `Invalid content type: ${v}` : `Invalid value. Specify a content type as '<app_label>.<model_name>'.`);
          }
          if (!out.includes(v as string)) out.push(v as string);
        }
        item.contentTypes.set(f.name, out.sort());
        return;
      }
      default:
        void def;
    }
  }

  /** Resolve references, apply defaults, custom fields, rules and uniqueness for all items. */
  private async prepare(def: ResourceDefinition, items: Item[], mode: WriteMode): Promise<void> {
    await this.resolveReferences(def, items);
    const create = mode === 'create';
    for (const item of items) {
      const values: Row = item.existing ? storedValues(def, item.existing) : {};
      if (create) {
        values.id = item.id;
        for (const f of Object.values(def.fields)) {
          if (f.kind === 'scalar') values[f.column] = defaultFor(f);
          else if (f.kind === 'fk' || f.kind === 'composite') {
            const cols = f.kind === 'fk' ? [f.column] : f.columns;
            cols.forEach((c) => (values[c] = null));
          } else if (f.kind === 'gfk') values[f.typeColumn] = values[f.idColumn] = null;
        }
      }
      Object.assign(values, item.set);
      item.values = values;
    }
    await this.applyDefaultsForForeignKeys(def, items, create);
    if (def.tree && !create) await this.checkTreeCycles(def, items);
    // What the extensions own of the body (custom_fields): validated, stored columns set.
    for (const e of this.ctx.registry.extensionsOf(def)) {
      if (!e.write) continue;
      const part = e.write;
      await part.prepare(
        { ctx: this.ctx, exec: this.exec, def, create },
        items.map((item) => ({
          given: item.extended.get(e),
          existing: item.existing,
          values: item.values,
          set: (column: string, value: unknown) => (item.values[column] = item.set[column] = value),
          addError: (k: string, m: string) => addError(item.errors, k, m),
        })),
      );
    }
    if (def.rules) {
      for (const item of items) {
        if (Object.keys(item.errors).length) continue;
        const errs = await def.rules(this.state(def, item, create), this.w);
        if (errs) for (const [k, msgs] of Object.entries(errs)) msgs.forEach((m) => addError(item.errors, k, m));
      }
    }
    if (def.validateBatch) {
      const valid = items.filter((i) => !Object.keys(i.errors).length);
      const errs = valid.length ? await def.validateBatch(valid.map((i) => this.state(def, i, create)), this.w) : undefined;
      (errs ?? []).forEach((e, n) => {
        if (e) for (const [k, msgs] of Object.entries(e)) msgs.forEach((m) => addError(valid[n].errors, k, m));
      });
    }
    await this.checkUnique(def, items);
  }

  /** A tree node may not become its own ancestor. */
  private async checkTreeCycles(def: ResourceDefinition, items: Item[]): Promise<void> {
    const parent = def.fields[def.tree!.parent] as ForeignKeyField;
    const moved = items.filter((i) => i.touched.has(parent.name) && i.values[parent.column]);
    if (!moved.length) return;
    for (const item of moved) {
      const below = new Set(await descendantIds(this.exec, def, [item.id]));
      if (below.has(String(item.values[parent.column]))) addError(item.errors, parent.name, 'Cannot assign self or a descendant as the parent.');
    }
  }

  /** Required foreign keys with a default (e.g. the Global namespace) when omitted on create. */
  private async applyDefaultsForForeignKeys(def: ResourceDefinition, items: Item[], create: boolean): Promise<void> {
    if (!create) return;
    for (const f of Object.values(def.fields)) {
      if (f.kind !== 'fk' || !f.default) continue;
      const missing = items.filter((i) => !i.touched.has(f.name));
      if (!missing.length) continue;
      const id = await f.default(this.w);
      if (!id) {
        // No default to fall back on (the Global namespace was renamed or deleted): the field must be given.
        if (!f.nullable) for (const item of missing) addError(item.errors, f.name, REQUIRED);
        continue;
      }
      const [row] = await this.exec.query(sql`SELECT * FROM ${ident(f.target().table)} WHERE ${ident('id')} = ${id}`);
      for (const item of missing) {
        item.values[f.column] = item.set[f.column] = id;
        if (row) item.related.set(f.name, row);
      }
    }
  }

  private state(def: ResourceDefinition, item: Item, create: boolean): WriteState {
    return {
      create,
      existing: item.existing,
      values: item.values,
      touched: item.touched,
      related: (name) => {
        if (item.related.has(name)) return item.related.get(name) ?? null;
        const f = def.fields[name];
        if (f?.kind === 'fk') {
          const cached = this.relatedCache.get(`${objectType(f.target())}:${item.values[f.column]}`);
          return cached ?? null;
        }
        return null;
      },
      m2m: (name) => item.m2m.get(name) ?? item.contentTypes.get(name),
      linked: async (name) => {
        const given = item.m2m.get(name) ?? item.contentTypes.get(name);
        if (given) return given;
        const f = def.fields[name];
        if (create || !f || (f.kind !== 'm2m' && f.kind !== 'contentTypes')) return [];
        const target = f.kind === 'm2m' ? f.through.target : 'content_type';
        const disc = f.kind === 'm2m' && f.through.discriminator ? sql` AND ${ident(f.through.discriminator)} = ${objectType(def)}` : sql``;
        const rows = await this.exec.query<{ v: string }>(sql`SELECT ${ident(target)} AS ${ident('v')} FROM ${ident(f.through.table)} WHERE ${ident(f.through.source)} = ${item.id}${disc}`);
        return rows.map((r) => String(r.v));
      },
    };
  }

  private readonly relatedCache = new Map<string, Row>();

  private async resolveReferences(def: ResourceDefinition, items: Item[]): Promise<void> {
    // Group every reference by (target, limit) so each target costs one id query.
    const groups = new Map<string, { target: ResourceDefinition; field: PendingRef['field']; entries: { item: Item; ref: PendingRef; spec: RefSpec; pos: number }[] }>();
    for (const item of items) {
      for (const ref of item.refs) {
        const key = `${objectType(ref.target)}|${ref.field.name}`;
        const g = groups.get(key) ?? { target: ref.target, field: ref.field, entries: [] };
        ref.specs.forEach((spec, pos) => g.entries.push({ item, ref, spec, pos }));
        groups.set(key, g);
      }
    }
    // Unchanged foreign keys that rules may need (parent, location_type): load them too.
    const wanted = new Map<ResourceDefinition, Set<string>>();
    for (const f of Object.values(def.fields)) {
      if (f.kind !== 'fk') continue;
      for (const item of items) {
        if (item.touched.has(f.name) || !item.existing?.[f.column]) continue;
        const set = wanted.get(f.target()) ?? new Set<string>();
        set.add(String(item.existing[f.column]));
        wanted.set(f.target(), set);
      }
    }
    await Promise.all(
      [...wanted].map(async ([target, ids]) => {
        const rows = await this.exec.query(sql`SELECT * FROM ${ident(target.table)} WHERE ${inList(ident('id'), [...ids])}`);
        rows.forEach((r) => this.relatedCache.set(`${objectType(target)}:${r.id}`, r));
      }),
    );
    await Promise.all(
      [...groups.values()].map(async (g) => {
        const limit = 'limit' in g.field && g.field.limit ? g.field.limit(def) : undefined;
        const results = await this.resolver.resolve(g.target, g.entries.map((e) => e.spec), limit);
        const many = new Map<string, string[]>();
        g.entries.forEach((e, i) => {
          const r = results[i];
          const f = e.ref.field;
          if (typeof r === 'string') {
            addError(e.item.errors, e.ref.errorKey ?? f.name, r);
            return;
          }
          this.relatedCache.set(`${objectType(g.target)}:${r.id}`, r);
          if (f.kind === 'fk') {
            e.item.set[f.column] = String(r.id);
            e.item.related.set(f.name, r);
          } else if (f.kind === 'gfk') {
            e.item.set[f.idColumn] = String(r.id);
            e.item.related.set(f.name, r);
          } else {
            const key = `${e.item.index}:${f.name}`;
            const list = many.get(key) ?? [];
            if (!list.includes(String(r.id))) list.push(String(r.id));
            many.set(key, list);
          }
        });
        for (const item of new Set(g.entries.map((e) => e.item))) {
          if (g.field.kind === 'm2m') item.m2m.set(g.field.name, many.get(`${item.index}:${g.field.name}`) ?? []);
        }
      }),
    );
    // An m2m given as an empty list has no specs and so no group: it clears the set.
    for (const item of items) for (const ref of item.refs) if (ref.many && !ref.specs.length) item.m2m.set(ref.field.name, []);
  }

  /** Unique fields and unique-together sets, checked for the whole batch in a few statements. */
  private async checkUnique(def: ResourceDefinition, items: Item[]): Promise<void> {
    const ok = items.filter((i) => !Object.keys(i.errors).length);
    if (!ok.length) return;
    // Stored rows that this batch updates are checked with their new values, below.
    const batchIds = new Set(ok.filter((i) => i.existing).map((i) => i.id));
    const sets: { fields: string[]; columns: string[]; field: string; message: (vals: unknown[]) => string; nullsEqual: boolean }[] = [];
    for (const f of Object.values(def.fields)) {
      if (f.kind === 'scalar' && f.unique) {
        sets.push({ fields: [f.name], columns: [f.column], field: f.name, message: () => `${def.verboseName} with this ${label(def, f.name)} already exists.`, nullsEqual: false });
      }
    }
    for (const u of def.uniqueTogether ?? []) {
      const columns = u.columns ?? u.fields.flatMap((n) => {
        const f = def.fields[n];
        return f?.kind === 'fk' ? [f.column] : f?.kind === 'scalar' ? [f.column] : f?.kind === 'composite' ? f.columns : [n];
      });
      sets.push({ fields: u.fields, columns, field: u.field ?? 'non_field_errors', message: (vals) => (typeof u.message === 'function' ? u.message(vals) : (u.message ?? `The fields ${u.fields.join(', ')} must make a unique set.`)), nullsEqual: !!u.nullsEqual });
    }
    // The id itself, when clients supply it.
    sets.push({ fields: ['id'], columns: ['id'], field: 'id', message: () => `${def.verboseName} with this Id already exists.`, nullsEqual: false });
    for (const s of sets) {
      const relevant = ok.filter((i) => (s.fields[0] === 'id' ? !i.existing : s.fields.some((n) => i.touched.has(n) || !i.existing)));
      const tuples = relevant
        .map((i) => ({ item: i, vals: s.columns.map((c) => i.values[c] ?? null) }))
        .filter((t) => s.nullsEqual || t.vals.every((v) => v !== null));
      if (!tuples.length) continue;
      const seen = new Map<string, Item>();
      for (const t of tuples) {
        const k = JSON.stringify(t.vals.map(keyOf));
        const prev = seen.get(k);
        if (prev && prev.id !== t.item.id) addError(t.item.errors, s.field, s.message(t.vals));
        else seen.set(k, t.item);
      }
      for (let i = 0; i < tuples.length; i += INSERT_CHUNK) {
        const chunk = tuples.slice(i, i + INSERT_CHUNK);
        const cond = tupleCondition(this.exec.dialect, s.columns, chunk.map((t) => t.vals));
        const rows = await this.exec.query(sql`SELECT ${join(['id', ...s.columns].map((c) => ident(c)))} FROM ${ident(def.table)} WHERE ${cond}`);
        const byKey = new Map(chunk.map((t) => [JSON.stringify(t.vals.map(keyOf)), t]));
        for (const r of rows) {
          if (batchIds.has(String(r.id))) continue;
          const owner = byKey.get(JSON.stringify(s.columns.map((c) => keyOf(r[c]))));
          if (owner && (!owner.item.existing || owner.item.id !== String(r.id))) addError(owner.item.errors, s.field, s.message(owner.vals));
        }
      }
    }
  }

  private async save(def: ResourceDefinition, items: Item[], create: boolean): Promise<void> {
    const states = items.map((i) => this.state(def, i, create));
    if (def.beforeSave) await def.beforeSave(states, this.w);
    const now = this.ctx.now();
    const columns = storedColumns(def);
    const types = columnTypes(def);
    const d = this.exec.dialect;
    if (create) {
      for (const item of items) {
        item.values.created = now;
        item.values.last_updated = now;
      }
      for (let i = 0; i < items.length; i += INSERT_CHUNK) {
        const chunk = items.slice(i, i + INSERT_CHUNK);
        const rows = chunk.map((it) => sql`(${join(columns.map((c) => param(d.toDb(it.values[c] ?? null, types[c]))))})`);
        await this.exec.execute(sql`INSERT INTO ${ident(def.table)} (${join(columns.map((c) => ident(c)))}) VALUES ${join(rows)}`);
      }
    } else {
      // Group rows by the set of changed columns: one statement per group.
      const groups = new Map<string, Item[]>();
      for (const item of items) {
        item.values.last_updated = now;
        const changed = columns.filter((c) => c !== 'id' && c !== 'created' && (c === 'last_updated' || c in item.set || !same(item.existing?.[c], item.values[c])));
        const key = changed.join(',');
        append(groups, key, item);
      }
      for (const [key, group] of groups) {
        const changed = key.split(',');
        for (let i = 0; i < group.length; i += INSERT_CHUNK) {
          const chunk = group.slice(i, i + INSERT_CHUNK);
          const ids = chunk.map((it) => it.id);
          const assignments = changed.map((c) => {
            if (chunk.length === 1) return sql`${ident(c)} = ${d.toDb(chunk[0].values[c] ?? null, types[c])}`;
            const cases = chunk.map((it) => sql` WHEN ${it.id} THEN ${d.typedParam(d.toDb(it.values[c] ?? null, types[c]), types[c])}`);
            return sql`${ident(c)} = CASE ${ident('id')}${join(cases, '')} END`;
          });
          await this.exec.execute(sql`UPDATE ${ident(def.table)} SET ${join(assignments)} WHERE ${inList(ident('id'), ids)}`);
        }
      }
    }
    await this.saveMany(def, items, create);
    if (def.afterSave) await def.afterSave(items.map((i) => i.id), this.w, states);
  }

  private async saveMany(def: ResourceDefinition, items: Item[], create: boolean): Promise<void> {
    for (const f of Object.values(def.fields)) {
      if (f.kind === 'm2m' && f.writable) await this.saveLinks(def, f, items, create, (i) => i.m2m.get(f.name));
      if (f.kind === 'contentTypes') await this.saveContentTypes(f, items, create);
    }
  }

  private async saveLinks(def: ResourceDefinition, f: ManyToManyField, items: Item[], create: boolean, get: (i: Item) => string[] | undefined) {
    const touched = items.filter((i) => get(i) !== undefined);
    if (!touched.length) return;
    const th = f.through;
    const disc = th.discriminator;
    if (!create) {
      await this.exec.execute(
        sql`DELETE FROM ${ident(th.table)} WHERE ${inList(ident(th.source), touched.map((i) => i.id))}${disc ? sql` AND ${ident(disc)} = ${objectType(def)}` : sql``}`,
      );
    }
    const rows = touched.flatMap((i) => get(i)!.map((t) => (disc ? [i.id, t, objectType(def)] : [i.id, t])));
    const cols = disc ? [th.source, th.target, disc] : [th.source, th.target];
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK);
      await this.exec.execute(sql`INSERT INTO ${ident(th.table)} (${join(cols.map((c) => ident(c)))}) VALUES ${join(chunk.map((r) => sql`(${join(r.map((v) => param(v)))})`))}`);
    }
  }

  private async saveContentTypes(f: ContentTypesField, items: Item[], create: boolean) {
    const touched = items.filter((i) => i.contentTypes.has(f.name));
    if (!touched.length) return;
    if (!create) await this.exec.execute(sql`DELETE FROM ${ident(f.through.table)} WHERE ${inList(ident(f.through.source), touched.map((i) => i.id))}`);
    const rows = touched.flatMap((i) => i.contentTypes.get(f.name)!.map((ct) => sql`(${i.id}, ${ct})`));
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await this.exec.execute(sql`INSERT INTO ${ident(f.through.table)} (${ident(f.through.source)}, ${ident('content_type')}) VALUES ${join(rows.slice(i, i + INSERT_CHUNK))}`);
    }
  }

  /** After a write, every object must still be inside the requester's scope for the action. */
  private async recheck(def: ResourceDefinition, ids: string[], action: Action): Promise<void> {
    const scope = await scopeCondition(this.ctx, this.exec, def, action, 't');
    if (scope.nodes.length === 1 && scope.nodes[0].t === 'text' && scope.nodes[0].v === '1=1') return;
    for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
      const chunk = ids.slice(i, i + INSERT_CHUNK);
      const [{ n }] = await this.exec.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${ident(def.table)} t WHERE ${and([inList(ident('t', 'id'), chunk), scope])}`);
      if (Number(n) !== chunk.length) throw new PermissionDeniedError();
    }
  }

  /**
   * Deletes objects (already loaded within the delete scope) with everything that cascades
   * from them; refuses with 409 when other objects protect them.
   */
  async delete(def: ResourceDefinition, rows: Row[]): Promise<void> {
    if (!rows.length) return;
    const doomed = await this.collect(def, rows.map((r) => String(r.id)));
    await this.checkCascadeScope(def, rows, doomed);
    if (def.beforeDelete) await def.beforeDelete(rows, this.w);
    for (const [d, ids] of doomed) {
      for (const f of Object.values(d.fields)) {
        if (f.kind === 'm2m' && f.through.discriminator) {
          for (const chunk of chunks([...ids])) {
            await this.exec.execute(sql`DELETE FROM ${ident(f.through.table)} WHERE ${ident(f.through.discriminator)} = ${objectType(d)} AND ${inList(ident(f.through.source), chunk)}`);
          }
        }
      }
    }
    // Objects that point here through a generic foreign key (notes) go too: no database
    // foreign key can express that relation.
    for (const [d, ids] of doomed) {
      for (const owner of this.ctx.registry.all()) {
        for (const f of Object.values(owner.fields)) {
          if (f.kind !== 'gfk' || (f.allowed && !f.allowed(d))) continue;
          for (const chunk of chunks([...ids])) {
            await this.exec.execute(sql`DELETE FROM ${ident(owner.table)} WHERE ${ident(f.typeColumn)} = ${objectType(d)} AND ${inList(ident(f.idColumn), chunk)}`);
          }
        }
      }
    }
    for (const chunk of chunks(rows.map((r) => String(r.id)))) {
      await this.exec.execute(sql`DELETE FROM ${ident(def.table)} WHERE ${inList(ident('id'), chunk)}`);
    }
    if (def.afterDelete) await def.afterDelete(rows, this.w);
  }

  /**
   * A delete reaches further than the objects named: cascades delete dependents and SET NULL
   * changes others. Each of them must be one the requester may delete (or change): otherwise the
   * whole delete is refused, saying how many, naming none (they may be hidden).
   */
  private async checkCascadeScope(def: ResourceDefinition, rows: Row[], doomed: Map<ResourceDefinition, Set<string>>): Promise<void> {
    const named = new Set(rows.map((r) => String(r.id)));
    let refused = 0;
    let changed = 0;
    const outside = async (d: ResourceDefinition, ids: string[], action: Action) => {
      const scope = await scopeCondition(this.ctx, this.exec, d, action, 'c', { base: false });
      if (isTrue(scope) || !ids.length) return 0;
      let inside = 0;
      for (const chunk of chunks(ids)) {
        const [{ n }] = await this.exec.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${ident(d.table)} c WHERE ${and([inList(ident('c', 'id'), chunk), scope])}`);
        inside += Number(n);
      }
      return ids.length - inside;
    };
    for (const [d, set] of doomed) refused += await outside(d, [...set].filter((id) => !(d === def && named.has(id))), 'delete');
    for (const [d, set] of doomed) {
      for (const rel of this.ctx.registry.reverseOf(d)) {
        // A reference the system keeps (read-only, or recomputed like a prefix's parent) is bookkeeping, not the requester's change.
        if (rel.field.onDelete !== 'setNull' || rel.field.readOnly || rel.field.maintained || rel.def.readOnly) continue;
        const gone = doomed.get(rel.def);
        for (const chunk of chunks([...set])) {
          const deps = await this.exec.query<{ id: string }>(sql`SELECT ${ident('id')} FROM ${ident(rel.def.table)} WHERE ${inList(ident(rel.field.column), chunk)}`);
          changed += await outside(rel.def, deps.map((r) => String(r.id)).filter((id) => !gone?.has(id)), 'change');
        }
      }
    }
    if (refused) throw new PermissionDeniedError(`Unable to delete object: it would also delete ${refused} dependent object${refused === 1 ? '' : 's'} that you may not delete.`);
    if (changed) throw new PermissionDeniedError(`Unable to delete object: it would also change ${changed} object${changed === 1 ? '' : 's'} that you may not change.`);
  }

  /** Everything a delete takes with it (cascades), after checking nothing protects it. */
  private async collect(def: ResourceDefinition, ids: string[]): Promise<Map<ResourceDefinition, Set<string>>> {
    const doomed = new Map<ResourceDefinition, Set<string>>([[def, new Set(ids)]]);
    const protectedBy: { def: ResourceDefinition; row: Row }[] = [];
    let frontier: [ResourceDefinition, string[]][] = [[def, ids]];
    while (frontier.length) {
      const next: [ResourceDefinition, string[]][] = [];
      for (const [d, list] of frontier) {
        for (const rel of this.ctx.registry.reverseOf(d)) {
          if (rel.field.onDelete === 'setNull') continue;
          for (const chunk of chunks(list)) {
            const deps = await this.exec.query(sql`SELECT * FROM ${ident(rel.def.table)} WHERE ${inList(ident(rel.field.column), chunk)}`);
            if (!deps.length) continue;
            if (rel.field.onDelete === 'protect') deps.forEach((row) => protectedBy.push({ def: rel.def, row }));
            else {
              const set = doomed.get(rel.def) ?? new Set<string>();
              const fresh = deps.map((r) => String(r.id)).filter((x) => !set.has(x));
              fresh.forEach((x) => set.add(x));
              doomed.set(rel.def, set);
              if (fresh.length) next.push([rel.def, fresh]);
            }
          }
        }
      }
      frontier = next;
    }
    const blocking = protectedBy.filter((p) => !doomed.get(p.def)?.has(String(p.row.id)));
    if (blocking.length) {
      const unique = [...new Map(blocking.map((b) => [String(b.row.id), b])).values()];
      // Name only the dependents the requester may view; the others are only counted.
      const visible = new Set<string>();
      for (const d of new Set(unique.map((b) => b.def))) {
        const idsOf = unique.filter((b) => b.def === d).map((b) => String(b.row.id));
        for (const chunk of chunks(idsOf)) {
          const rows = await this.exec.query<{ id: string }>(sql`SELECT ${ident('v', 'id')} AS ${ident('id')} FROM ${ident(d.table)} ${ident('v')} WHERE ${and([inList(ident('v', 'id'), chunk), await scopeCondition(this.ctx, this.exec, d, 'view', 'v')])}`);
          rows.forEach((r) => visible.add(String(r.id)));
        }
      }
      const names = unique.filter((b) => visible.has(String(b.row.id))).map((b) => `${b.def.display(b.row, { related: () => null, ancestors: [] })} (${b.row.id})`);
      const hidden = unique.length - names.length;
      if (hidden) names.push(`${hidden} that you may not view`);
      throw new ConflictError(`Unable to delete object. ${unique.length} dependent objects were found: ${names.join(', ')}`);
    }
    return doomed;
  }
}

/** A stored row with JSON columns parsed (MariaDB returns them as text), for rules to read. */
function storedValues(def: ResourceDefinition, row: Row): Row {
  const out = { ...row };
  for (const f of Object.values(def.fields)) {
    if (f.kind === 'scalar' && f.type === 'json' && typeof out[f.column] === 'string') {
      try {
        out[f.column] = JSON.parse(out[f.column]);
      } catch {
        /* not JSON text: keep the string */
      }
    }
  }
  return out;
}

const isNotFound = (m: string) => m.startsWith('Related object not found');

export function chunks<T>(list: T[], size = INSERT_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/**
 * Rows equal to any of the tuples, as few conditions as the tuples allow: tuples that agree on
 * every column but the last share one IN list (`namespace = ? AND host IN (...)`), which the
 * database serves as one index scan rather than hundreds of OR-ed equalities.
 */
function tupleCondition(d: Dialect, columns: string[], tuples: unknown[][]): Sql {
  const eq = (c: string, v: unknown) => (v === null ? sql`${ident(c)} IS NULL` : sql`${ident(c)} = ${d.toDb(v, 'string')}`);
  const last = columns[columns.length - 1];
  const groups = new Map<string, { head: unknown[]; tails: unknown[] }>();
  for (const vals of tuples) {
    const head = vals.slice(0, -1);
    const k = JSON.stringify(head.map(keyOf));
    if (!groups.has(k)) groups.set(k, { head, tails: [] });
    groups.get(k)!.tails.push(vals[vals.length - 1]);
  }
  return or(
    [...groups.values()].map((g) => {
      const present = g.tails.filter((v) => v !== null);
      const tail = or([present.length ? inList(ident(last), present.map((v) => d.toDb(v, 'string'))) : null, present.length < g.tails.length ? sql`${ident(last)} IS NULL` : null]);
      return and([...g.head.map((v, j) => eq(columns[j], v)), tail]);
    }),
  );
}

function keyOf(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return v.toString('hex');
  if (v instanceof Date) return v.toISOString();
  if (v === null || v === undefined) return null;
  return String(v);
}

/** Equality of a stored value and a written one, across driver representations. */
export function same(a: unknown, b: unknown): boolean {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (a === null || a === undefined || b === null || b === undefined) return false;
  if (typeof a === 'boolean' || typeof b === 'boolean') return Boolean(a === true || a === 1 || a === '1') === Boolean(b === true || b === 1 || b === '1');
  if ((typeof a === 'object' && !Buffer.isBuffer(a) && !(a instanceof Date)) || (typeof b === 'object' && !Buffer.isBuffer(b) && !(b instanceof Date))) {
    return JSON.stringify(typeof a === 'string' ? JSON.parse(a) : a) === JSON.stringify(typeof b === 'string' ? JSON.parse(b) : b);
  }
  const ka = keyOf(a);
  const kb = keyOf(b);
  if (ka === kb) return true;
  const na = Number(ka);
  const nb = Number(kb);
  return !Number.isNaN(na) && !Number.isNaN(nb) && String(ka).trim() !== '' && na === nb;
}

export { raw, Sql };
