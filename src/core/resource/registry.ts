import type { TableSchema } from '../../database/schema/schema';
import { forgetFieldList, nameField, objectType, ownMap, ResourceDefinition } from './definition';
import type { ModelExtension } from './extension';
import type { CountField, ForeignKeyField, GenericForeignKeyField, ManyToManyField } from './fields';
import { modelColumns, modelTable, ownsThroughTable, throughTable } from './storage';

import { append } from '../collections';
import { SEED_TABLE } from './seed';
import { AUTH_THROTTLE_TABLE } from '../auth/throttle.table';

/** Whether a model takes an extension: its feature among the model's (none: every model), and the extension's own test where it has one. */
const takes = (def: ResourceDefinition, e: ModelExtension) => (!e.feature || def.features.includes(e.feature)) && (!e.applies || e.applies(def));

export interface ReverseRelation {
  def: ResourceDefinition;
  field: ForeignKeyField;
}

/** A generic foreign key of another model that may point at a model (a note's `assigned_object`). */
export interface GenericReference {
  def: ResourceDefinition;
  field: GenericForeignKeyField;
}

/** A relation seen from its target: other objects that point here (for filters). */
export interface RelatedSet {
  /** Filter name on the target (`locations`, `children`). */
  name: string;
  def: ResourceDefinition;
  field: ForeignKeyField | ManyToManyField;
}

/**
 * Every resource definition of the running app, with the cross-model facts the engine needs
 * (reverse foreign keys, content types), built once at boot.
 */
export class ResourceRegistry {
  private readonly byType = new Map<string, ResourceDefinition>();
  private readonly reverse = new Map<ResourceDefinition, ReverseRelation[]>();
  private readonly related = new Map<ResourceDefinition, RelatedSet[]>();
  private bound = false;
  private readonly extensions: ModelExtension[] = [];
  private readonly extensionsByDef = new Map<ResourceDefinition, ModelExtension[]>();
  /** Services apps hand to their extensions at start-up (the custom field definitions' source), by key. */
  private readonly services = new Map<string, unknown>();

  constructor(defs: ResourceDefinition[] = [], tables: TableSchema[] = [], extensions: ModelExtension[] = []) {
    this.extensions.push(...extensions);
    defs.forEach((d) => this.add(d));
    [SEED_TABLE, AUTH_THROTTLE_TABLE, ...tables].forEach((t) => this.addTable(t));
  }

  /**
   * Registers a model, with what the extensions it takes add to it: their fields (a field of the
   * model's own wins), filter aliases and columns. Idempotent for a definition shared by several
   * registries (one process may start several apps).
   */
  /** A registry of these models, sealed (their cross-model facts derived). */
  static sealed(defs: ResourceDefinition[], tables: TableSchema[] = [], extensions: ModelExtension[] = []): ResourceRegistry {
    const r = new ResourceRegistry(defs, tables, extensions);
    r.seal();
    return r;
  }

  add(def: ResourceDefinition): void {
    const type = objectType(def);
    if (this.byType.has(type)) throw new Error(`Resource ${type} is defined twice`);
    const taken = this.extensions.filter((e) => takes(def, e));
    this.extensionsByDef.set(def, taken);
    for (const e of taken) {
      for (const [name, f] of Object.entries(e.fields?.(def, (t) => this.get(t)) ?? {})) if (!def.fields[name]) {
        def.fields[name] = nameField(name, { ...f });
        forgetFieldList(def);
      }
      for (const [alias, target] of Object.entries(e.filterAliases ?? {})) {
        def.filterAliases ??= ownMap({});
        if (!Object.hasOwn(def.filterAliases, alias)) def.filterAliases[alias] = target;
      }
      for (const [name, f] of Object.entries(e.filters ?? {})) {
        def.filters ??= ownMap({});
        if (!def.filters[name]) def.filters[name] = f;
      }
      for (const c of e.columns ?? []) {
        def.columns ??= {};
        if (!def.columns[c.name]) def.columns[c.name] = { type: c.type, nullable: c.nullable, length: c.length, precision: c.precision, scale: c.scale };
      }
    }
    this.byType.set(type, def);
  }

  /** The extensions a model takes, in the order the apps registered them. */
  extensionsOf(def: ResourceDefinition): ModelExtension[] {
    return this.extensionsByDef.get(def) ?? this.extensions.filter((e) => takes(def, e));
  }

  provide(key: string, service: unknown): void {
    this.services.set(key, service);
  }

  service<T>(key: string): T | undefined {
    return this.services.get(key) as T | undefined;
  }

  all(): ResourceDefinition[] {
    return [...this.byType.values()];
  }

  private readonly rootLinks = new Map<string, string[]>();

  /** Special endpoints (not models) an app's API root lists, by URL segment. */
  addRootLinks(app: string, links: string[]): void {
    this.rootLinks.set(app, [...(this.rootLinks.get(app) ?? []), ...links]);
  }

  rootLinksOf(app: string): string[] {
    return this.rootLinks.get(app) ?? [];
  }

  /** The model whose own table this is (a through model's link table), if any. */
  byTable(table: string): ResourceDefinition | undefined {
    return this.all().find((d) => d.table === table);
  }

  get(type: string): ResourceDefinition | undefined {
    return this.byType.get(type);
  }

  /** The apps whose roots the API root lists (a plugin's live under /api/plugins/). */
  apps(): string[] {
    return [...new Set(this.all().filter((d) => !d.apiBase).map((d) => d.app))].sort();
  }

  /** The models under the API root `/api/<path>/`: an app's label, or `plugins/<base_url>`. */
  forApp(path: string): ResourceDefinition[] {
    return this.all().filter((d) => (d.apiBase ?? d.app) === path);
  }

  /** Foreign keys of other models that point at `def`. */
  reverseOf(def: ResourceDefinition): ReverseRelation[] {
    return this.reverse.get(def) ?? [];
  }

  private readonly genericTo = new Map<ResourceDefinition, GenericReference[]>();

  /**
   * Generic foreign keys of every model (its own included) that may point at `def` (no `allowed`
   * test, or one that admits it), worked out once per model: a delete asks at every level of
   * its cascade.
   */
  genericReferencesTo(def: ResourceDefinition): GenericReference[] {
    let out = this.genericTo.get(def);
    if (!out) {
      out = [];
      for (const owner of this.all()) {
        for (const f of Object.values(owner.fields)) if (f.kind === 'gfk' && (!f.allowed || f.allowed(def))) out.push({ def: owner, field: f });
      }
      this.genericTo.set(def, out);
    }
    return out;
  }

  /** The model whose own table this is (a through model's, for its many-to-many fields' links), if any. */
  modelOfTable(table: string): ResourceDefinition | undefined {
    return this.all().find((d) => d.table === table);
  }

  /** Foreign keys and many-to-many fields of other models that point at `def`, by filter name. */
  relatedSets(def: ResourceDefinition): RelatedSet[] {
    return this.related.get(def) ?? [];
  }

  /** Tables that are no model's own (sessions, histories, lookup keys), registered by their apps. */
  private readonly plainTables: TableSchema[] = [];

  addTable(table: TableSchema): void {
    if (this.plainTables.some((t) => t.name === table.name)) throw new Error(`Table ${table.name} is declared twice`);
    this.plainTables.push(table);
  }

  /**
   * Checks the definitions (every column a field reads is declared, every target registered) and
   * derives the cross-model facts: reverse foreign keys and related sets for filters. Once.
   */
  seal(): void {
    if (this.bound) return;
    this.bound = true;
    for (const def of this.all()) {
      modelColumns(def);
      for (const f of Object.values(def.fields)) {
        if (f.kind === 'fk') {
          const target = f.target();
          if (!this.byType.has(objectType(target))) throw new Error(`${objectType(def)}.${f.name}: target ${objectType(target)} is not registered`);
          append(this.reverse, target, { def, field: f });
          this.addRelated(target, def, f);
        } else if (f.kind === 'm2m') {
          if (!f.through.discriminator) this.addRelated(f.target(), def, f);
        }
      }
    }
  }

  /**
   * Every table the declarations call for: each model's, the link tables of its many-to-many
   * fields (unless a model owns the table: a through model), and the plain tables of the apps.
   */
  tables(): TableSchema[] {
    const owned = new Set(this.all().map((d) => d.table));
    const out = new Map<string, TableSchema>();
    for (const def of this.all()) {
      out.set(def.table, modelTable(def));
      for (const f of Object.values(def.fields)) {
        if (ownsThroughTable(f) && !owned.has(f.through.table) && !out.has(f.through.table)) out.set(f.through.table, throughTable(def, f));
      }
    }
    for (const t of this.plainTables) out.set(t.name, t);
    return [...out.values()];
  }

  /**
   * The tables whose rows, deleted, make the database's foreign keys delete or clear rows of
   * `tables` (ON DELETE CASCADE or SET NULL), directly or through a chain of cascading deletes,
   * other than `tables` themselves.
   */
  cascadeParents(tables: string[]): string[] {
    const schemas = new Map(this.tables().map((t) => [t.name, t]));
    const wanted = new Set(tables);
    const out = new Set<string>();
    // A parent's delete reaches `tables` by a CASCADE or SET NULL; a grandparent's only by
    // cascading deletes of the tables between.
    let frontier = tables.flatMap((name) => (schemas.get(name)?.foreignKeys ?? []).filter((f) => f.onDelete !== 'restrict').map((f) => f.table));
    while (frontier.length) {
      const next: string[] = [];
      for (const parent of frontier) {
        if (wanted.has(parent) || out.has(parent)) continue;
        out.add(parent);
        for (const f of schemas.get(parent)?.foreignKeys ?? []) if (f.onDelete === 'cascade') next.push(f.table);
      }
      frontier = next;
    }
    return [...out];
  }

  /**
   * The tables a model's count fields and many-to-many id lists read, and those whose deletes
   * reach them by a foreign key: null where any of them is not watched (its changes would go
   * uncounted), an empty list where the model has no such values (serialize/kept-values.ts).
   */
  valueTables(def: ResourceDefinition): string[] | null {
    const schemas = new Map(this.tables().map((t) => [t.name, t]));
    /** Table -> the columns of it the values read by (a SET NULL of another column changes no count). */
    const read = new Map<string, Set<string>>();
    const reads = (table: string, ...columns: string[]) => {
      const set = read.get(table) ?? new Set<string>();
      for (const c of columns) set.add(c);
      read.set(table, set);
    };
    for (const f of Object.values(def.fields)) {
      if (f.kind === 'count') {
        const path = this.countPath(f);
        if (!path) continue; // not shown (page-extras leaves it out)
        if (path.link) {
          const th = path.link.through;
          reads(path.counted.table, 'id');
          reads(th.table, th.source, th.target, ...(th.discriminator ? [th.discriminator] : []));
        }
        let at = path.counted;
        for (const fk of path.keys) {
          reads(at.table, fk.column);
          at = fk.target();
        }
      } else if (f.kind === 'm2m' && !f.writeOnly) {
        reads(f.through.table, f.through.source, f.through.target, ...(f.through.discriminator ? [f.through.discriminator] : []));
        // The list is ordered by the linked objects' names, or else by their ordering, whose
        // foreign keys order by their targets' rows (query/sort.ts).
        const target = f.target();
        reads(target.table, 'id');
        if (target.fields.name) continue;
        for (const term of target.ordering) {
          const key = target.fields[term.replace(/^-/, '')];
          if (key?.kind !== 'fk') continue;
          reads(target.table, key.column);
          reads(key.target().table, 'id');
        }
      }
    }
    const out = new Set<string>();
    const add = (table: string): boolean => {
      if (out.has(table)) return true;
      const schema = schemas.get(table);
      if (!schema?.watched) return false;
      out.add(table);
      return parentsReaching(schema, read.get(table) ?? new Set()).every(add);
    };
    for (const table of read.keys()) if (!add(table)) return null;
    return [...out].sort();
  }

  /**
   * How a count field reaches the objects it counts: the counted model and either its foreign
   * keys from it to the counting object (`via` `location`, or a path `cluster__location`: each a
   * foreign key to a registered model), or one many-to-many field of it whose link table names
   * the counting object (`via` `locations`). Null where `via` names neither (the count is not
   * shown). The page statement's counts (page-extras.ts) and the tables kept values watch
   * (`valueTables`) both follow it.
   */
  countPath(f: CountField): { counted: ResourceDefinition; keys: ForeignKeyField[]; link?: ManyToManyField } | null {
    const counted = this.get(f.model);
    if (!counted) return null;
    const hops = f.via.split('__');
    const first = counted.fields[hops[0]];
    if (hops.length === 1 && first?.kind === 'm2m') return { counted, keys: [], link: first };
    const keys: ForeignKeyField[] = [];
    let at = counted;
    for (const hop of hops) {
      const fk = at.fields[hop];
      if (fk?.kind !== 'fk' || !this.get(objectType(fk.target()))) return null;
      keys.push(fk);
      at = fk.target();
    }
    return { counted, keys };
  }

  /** The watched tables of some models (their own and their link tables): caches of them must hear of every change. */
  watchedTables(types: string[]): string[] {
    const owned = new Set(this.all().map((d) => d.table));
    const out = new Set<string>();
    for (const def of types.map((type) => this.get(type)).filter((d): d is ResourceDefinition => !!d?.watched)) {
      out.add(def.table);
      for (const f of Object.values(def.fields)) if (ownsThroughTable(f) && !owned.has(f.through.table)) out.add(f.through.table);
    }
    return [...out];
  }

  private addRelated(target: ResourceDefinition, owner: ResourceDefinition, f: ForeignKeyField | ManyToManyField): void {
    // '+': no reverse relation to filter by (Django's related_name="+").
    if (f.relatedName === '+') return;
    const name = f.relatedName ?? (owner === target && owner.tree?.parent === f.name ? 'children' : owner.slug.replace(/-/g, '_'));
    // Django's related_name "+": the target has no reverse relation by this key (no `<name>=` / `has_<name>` filters).
    if (name === '+') return;
    const list = this.related.get(target) ?? [];
    if (!list.some((r) => r.name === name)) list.push({ name, def: owner, field: f });
    this.related.set(target, list);
  }

  /** Content types (app.model) of the models a predicate allows, sorted. */
  contentTypes(allowed: (d: ResourceDefinition) => boolean): string[] {
    return this.all().filter(allowed).map(objectType).sort();
  }
}

/**
 * The tables whose deleted rows a foreign key of `schema` deletes rows of it with (CASCADE), or
 * clears one of `columns` in (SET NULL; a table the values do not read itself, only reached by
 * a cascade, has none: a column cleared there changes nothing they read).
 */
function parentsReaching(schema: TableSchema, columns: Set<string>): string[] {
  return schema.foreignKeys.filter((f) => f.onDelete === 'cascade' || (f.onDelete === 'setNull' && columns.has(f.column))).map((f) => f.table);
}
