import type { TableSchema } from '../../database/schema/schema';
import { objectType, ResourceDefinition } from './definition';
import { field, ForeignKeyField, ManyToManyField } from './fields';
import { modelColumns, modelTable, ownsThroughTable, throughTable } from './storage';

export const TAG_TYPE = 'extras.tag';
import { CustomFieldSource, NO_CUSTOM_FIELDS } from './custom-fields';
import { append } from '../collections';
import { SEED_TABLE } from './seed';

export interface ReverseRelation {
  def: ResourceDefinition;
  field: ForeignKeyField;
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
  /** Where custom field definitions come from (the extras app sets it at boot). */
  customFieldSource: CustomFieldSource = NO_CUSTOM_FIELDS;

  constructor(defs: ResourceDefinition[] = [], tables: TableSchema[] = []) {
    defs.forEach((d) => this.add(d));
    [SEED_TABLE, ...tables].forEach((t) => this.addTable(t));
  }

  add(def: ResourceDefinition): void {
    const type = objectType(def);
    if (this.byType.has(type)) throw new Error(`Resource ${type} is defined twice`);
    if (def.features.includes('tags') && !def.fields.tags) {
      // Tags are one generic through table for every model (Nautobot's TaggedItem).
      def.fields.tags = {
        ...field.manyToMany(() => this.get(TAG_TYPE)!, { table: 'extras_taggeditem', source: 'object_id', target: 'tag_id', discriminator: 'content_type' }, {
          writable: true,
          filterAll: true,
          limit: (owner) => ({ content_types: objectType(owner) }),
        }),
        name: 'tags',
      };
    }
    this.byType.set(type, def);
  }

  all(): ResourceDefinition[] {
    return [...this.byType.values()];
  }

  get(type: string): ResourceDefinition | undefined {
    return this.byType.get(type);
  }

  apps(): string[] {
    return [...new Set(this.all().map((d) => d.app))].sort();
  }

  forApp(app: string): ResourceDefinition[] {
    return this.all().filter((d) => d.app === app);
  }

  /** Foreign keys of other models that point at `def`. */
  reverseOf(def: ResourceDefinition): ReverseRelation[] {
    return this.reverse.get(def) ?? [];
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
    const name = f.relatedName ?? (owner === target && owner.tree?.parent === f.name ? 'children' : owner.slug.replace(/-/g, '_'));
    const list = this.related.get(target) ?? [];
    if (!list.some((r) => r.name === name)) list.push({ name, def: owner, field: f });
    this.related.set(target, list);
  }

  /** Content types (app.model) of the models a predicate allows, sorted. */
  contentTypes(allowed: (d: ResourceDefinition) => boolean): string[] {
    return this.all().filter(allowed).map(objectType).sort();
  }
}
