import type { DataSource } from 'typeorm';
import { objectType, ResourceDefinition } from './definition';
import { field, ForeignKeyField, ManyToManyField } from './fields';

export const TAG_TYPE = 'extras.tag';
import { CustomFieldSource, NO_CUSTOM_FIELDS } from './custom-fields';
import { append } from '../collections';

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

  constructor(defs: ResourceDefinition[] = []) {
    defs.forEach((d) => this.add(d));
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

  /** Checks definitions against the entities' columns and fills storage facts (lengths). */
  bind(dataSource: DataSource): void {
    if (this.bound) return;
    this.bound = true;
    for (const def of this.all()) {
      const meta = dataSource.getMetadata(def.entity);
      if (meta.tableName !== def.table) throw new Error(`${objectType(def)}: entity table ${meta.tableName} != ${def.table}`);
      const columns = new Map(meta.columns.map((c) => [c.databaseName, c]));
      const need = (col: string) => {
        const c = columns.get(col);
        if (!c) throw new Error(`${objectType(def)}: entity ${meta.name} has no column ${col}`);
        return c;
      };
      for (const f of Object.values(def.fields)) {
        if (f.kind === 'scalar') {
          const c = need(f.column);
          if (f.maxLength === undefined && c.length) f.maxLength = Number(c.length);
          if (f.nullable === undefined) f.nullable = c.isNullable;
          if (f.type === 'decimal') {
            f.maxDigits ??= c.precision ?? undefined;
            f.decimalPlaces ??= c.scale ?? undefined;
          }
        } else if (f.kind === 'fk') {
          const c = need(f.column);
          if (f.nullable === undefined) f.nullable = c.isNullable;
          const target = f.target();
          if (!this.byType.has(objectType(target))) throw new Error(`${objectType(def)}.${f.name}: target ${objectType(target)} is not registered`);
          append(this.reverse, target, { def, field: f });
          this.addRelated(target, def, f);
        } else if (f.kind === 'm2m') {
          if (f.through.table !== 'extras_taggeditem') this.addRelated(f.target(), def, f);
        } else if (f.kind === 'gfk') {
          need(f.typeColumn);
          need(f.idColumn);
        } else if (f.kind === 'composite' || f.kind === 'computed') {
          f.columns.forEach(need);
        }
      }
      ['id', 'created', 'last_updated'].forEach(need);
      if (def.features.includes('customFields')) need('_custom_field_data');
    }
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
