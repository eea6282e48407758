import type { Executor, Row } from '../../database/db';
import { ident, inList, sql } from '../../database/sql';
import type { Action, RequestContext } from '../context';
import type { ResourceDefinition, WriteContext } from './definition';
import type { ModelExtension, WriteItem } from './extension';
import { PermissionDeniedError, ValidationError } from './errors';
import type { ForeignKeyField, ScalarField } from './fields';
import { visibleRows } from './query/scope';
import { addError, defaultFor } from './serialize/input';
import { ReferenceResolver } from './serialize/references';
import { deleteRows } from './write/delete';
import { chunks, ID_CHUNK, isNotFound, Item, newItem, storedValues, WriteMode, WriteRun } from './write/item';
import { parse } from './write/parse';
import { resolveReferences, state } from './write/resolve';
import { save } from './write/save';
import { applyDefaultsForForeignKeys, checkTreeCycles, checkUnique } from './write/validate';

export { chunks, same } from './write/item';
export type { WriteMode } from './write/item';

/**
 * The write half of the engine: parse -> resolve references -> validate -> model rules ->
 * save (batched statements) -> re-check the permission scope. Runs inside the caller's
 * transaction, so any failure leaves nothing behind.
 */
export class ResourceWriter {
  private readonly run: WriteRun;

  constructor(
    private readonly ctx: RequestContext,
    private readonly exec: Executor,
  ) {
    this.run = { ctx, exec, w: { ctx, exec }, resolver: new ReferenceResolver(ctx, exec), relatedCache: new Map() };
  }

  /** Creates objects; returns their ids in input order. Errors: a list aligned with the input. */
  async create(def: ResourceDefinition, inputs: Record<string, unknown>[], listShaped: boolean): Promise<string[]> {
    let items = inputs.map((input, index) => parse(this.run, def, input, index, 'create', null));
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
      await save(this.run, def, ready, true);
      done.push(...ready);
      items = waiting.map((i) => parse(this.run, def, inputs[i.index], i.index, 'create', null));
      await this.prepare(def, items, 'create');
    }
    const all = [...done, ...items].sort((a, b) => a.index - b.index);
    this.throwIfInvalid(all, listShaped ? 'list' : 'single');
    await save(this.run, def, items, true);
    await this.extensionsAfterSave(def, all, true);
    await this.recheck(def, all.map((i) => i.id), 'add');
    return all.map((i) => i.id);
  }

  /** Updates existing rows (already loaded within scope). */
  async update(def: ResourceDefinition, changes: { existing: Row; input: Record<string, unknown> }[], mode: 'replace' | 'patch'): Promise<string[]> {
    const items = changes.map((c, index) => parse(this.run, def, c.input, index, mode, c.existing));
    await this.prepare(def, items, mode);
    this.throwIfInvalid(items, 'first');
    await save(this.run, def, items, false);
    await this.extensionsAfterSave(def, items, false);
    await this.recheck(def, items.map((i) => i.id), 'change');
    return items.map((i) => i.id);
  }

  private throwIfInvalid(items: Item[], shape: 'list' | 'single' | 'first'): void {
    const bad = items.filter((i) => Object.keys(i.errors).length);
    if (!bad.length) return;
    if (shape === 'list') throw new ValidationError(items.map((i) => i.errors));
    throw new ValidationError(bad[0].errors);
  }

  /**
   * Objects the engine derives from others in the same transaction (a device's components from
   * its type's templates, as the reference's bulk_create): the column values are the caller's,
   * already valid; the model's defaults, its extensions' (custom field defaults) and its derived
   * columns are added, and the rows saved in chunks. No permission on them is asked: they come
   * with the object the requester was allowed to write.
   */
  async derive(def: ResourceDefinition, rows: Row[]): Promise<void> {
    if (!rows.length) return;
    const items: Item[] = rows.map((values, index) => Object.assign(newItem(index, String(values.id), null), { set: { ...values }, touched: new Set(Object.keys(values)) }));
    this.initialValues(def, items, true);
    await this.extensionValues(def, items, true);
    await save(this.run, def, items, true, false);
  }

  /** Resolve references, apply defaults, custom fields, rules and uniqueness for all items. */
  private async prepare(def: ResourceDefinition, items: Item[], mode: WriteMode): Promise<void> {
    await resolveReferences(this.run, def, items);
    const create = mode === 'create';
    this.initialValues(def, items, create);
    await applyDefaultsForForeignKeys(this.run, def, items, create);
    if (def.tree && !create) await checkTreeCycles(this.run, def, items);
    await this.extensionValues(def, items, create);
    await this.checkRules(def, items, create);
  }

  /** Each item's values: the stored row (or the fields' defaults on create) with the request's on top. */
  private initialValues(def: ResourceDefinition, items: Item[], create: boolean): void {
    const blank = create ? blankRow(def) : undefined;
    for (const item of items) {
      let values: Row;
      if (blank) {
        values = {};
        for (let i = 0; i < blank.columns.length; i++) values[blank.columns[i]] = blank.values[i];
        values.id = item.id;
        for (const f of blank.computed) values[f.column] = defaultFor(f);
      } else values = item.existing ? storedValues(def, item.existing) : {};
      Object.assign(values, item.set);
      if (blank) {
        for (const f of blank.populated) {
          if (values[f.column] === '' || values[f.column] === null || values[f.column] === undefined) values[f.column] = item.set[f.column] = f.populateFrom!(values);
        }
      }
      item.values = values;
    }
  }

  /** What the extensions own of the body (custom_fields): validated, stored columns set (their defaults on create). */
  private async extensionValues(def: ResourceDefinition, items: Item[], create: boolean): Promise<void> {
    for (const e of this.ctx.registry.extensionsOf(def)) {
      if (!e.write) continue;
      const part = e.write;
      await part.prepare({ ctx: this.ctx, exec: this.exec, def, create }, this.writeItems(e, items));
    }
  }

  /** What the extensions write beyond the saved rows (relationship associations), once the rows exist. */
  private async extensionsAfterSave(def: ResourceDefinition, items: Item[], create: boolean): Promise<void> {
    for (const e of this.ctx.registry.extensionsOf(def)) {
      if (e.write?.afterSave) await e.write.afterSave({ ctx: this.ctx, exec: this.exec, def, create }, this.writeItems(e, items));
    }
  }

  private writeItems(e: ModelExtension, items: Item[]): WriteItem[] {
    return items.map((item) => ({
          given: item.extended.get(e),
          existing: item.existing,
          values: item.values,
          set: (column: string, value: unknown) => (item.values[column] = item.set[column] = value),
          addError: (k: string, m: string) => addError(item.errors, k, m),
    }));
  }

  /** Model rules, batch rules and uniqueness, on the items without errors so far. */
  private async checkRules(def: ResourceDefinition, items: Item[], create: boolean): Promise<void> {
    if (def.rules) {
      for (const item of items) {
        if (Object.keys(item.errors).length) continue;
        const errs = await def.rules(state(this.run, def, item, create), this.run.w);
        if (errs) for (const [k, msgs] of Object.entries(errs)) msgs.forEach((m) => addError(item.errors, k, m));
      }
    }
    if (def.validateBatch) {
      const valid = items.filter((i) => !Object.keys(i.errors).length);
      const errs = valid.length ? await def.validateBatch(valid.map((i) => state(this.run, def, i, create)), this.run.w) : undefined;
      (errs ?? []).forEach((e, n) => {
        if (e) for (const [k, msgs] of Object.entries(e)) msgs.forEach((m) => addError(valid[n].errors, k, m));
      });
    }
    await checkUnique(this.run, def, items);
  }

  /**
   * Deletes objects (already loaded within the delete scope) with everything that cascades
   * from them; refuses with 409 when other objects protect them, 403 when a cascade reaches
   * objects the requester may not delete or change.
   */
  delete(def: ResourceDefinition, rows: Row[]): Promise<void> {
    return deleteRows(this.run, def, rows);
  }

  /** After a write, every object must still be inside the requester's scope for the action. */
  private async recheck(def: ResourceDefinition, ids: string[], action: Action): Promise<void> {
    const allowed = await visibleRows(this.ctx, this.exec, def, 't', action);
    if (!allowed.restricted) return;
    for (const chunk of chunks(ids, ID_CHUNK)) {
      const [{ n }] = await this.exec.query<{ n: number }>(sql`SELECT COUNT(*) AS n ${allowed.from(inList(ident('t', 'id'), chunk))}`);
      if (Number(n) !== chunk.length) throw new PermissionDeniedError();
    }
  }

}

/** For a model's hooks: objects derived from those being written, saved in the same transaction (see `ResourceWriter.derive`). */
export const deriveObjects = (w: WriteContext, def: ResourceDefinition, rows: Row[]): Promise<void> => new ResourceWriter(w.ctx, w.exec).derive(def, rows);

/**
 * A new row of a model before the request's values: its id, each scalar field's default and null
 * for every related object's column, in the fields' order; the fields whose default is made anew
 * for each row (a function), and those populated from the others when left empty.
 */
interface BlankRow {
  /**
   * Its columns and their values, set one by one into a new object for each row: a copy by
   * spread of a template row of this many properties (one V8 keeps as a dictionary) took 5-8 µs
   * a row, a tenth of that this way.
   */
  columns: string[];
  values: unknown[];
  computed: ScalarField[];
  populated: ScalarField[];
}

const blankRows = new WeakMap<ResourceDefinition, BlankRow>();

/** The model's blank row, made once: a create makes each of its rows from it. */
function blankRow(def: ResourceDefinition): BlankRow {
  let blank = blankRows.get(def);
  if (blank) return blank;
  const template: Row = { id: null };
  const computed: ScalarField[] = [];
  const populated: ScalarField[] = [];
  for (const f of Object.values(def.fields)) {
    if (f.kind === 'scalar') {
      if (typeof f.default === 'function') computed.push(f);
      template[f.column] = typeof f.default === 'function' ? null : defaultFor(f);
      if (f.populateFrom) populated.push(f);
    } else if (f.kind === 'fk') template[f.column] = null;
    else if (f.kind === 'composite') for (const c of f.columns) template[c] = null;
    else if (f.kind === 'gfk') template[f.typeColumn] = template[f.idColumn] = null;
  }
  blank = { columns: Object.keys(template), values: Object.values(template), computed, populated };
  blankRows.set(def, blank);
  return blank;
}
