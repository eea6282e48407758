import type { Row } from '../../database/db';
import type { ColumnSpec } from '../../database/schema/schema';
import type { CustomFilter, Feature, ResourceDefinition, UniqueTogether, WriteContext, WriteState } from './definition';
import type { FieldErrors } from './errors';
import { field, Field } from './fields';

/**
 * A group of fields declared once and taken by many models (Nautobot's StatusField,
 * TenancyMixin, TreeModel and their filter-set mixins): its fields, filters, features, search
 * and rules come to every model that lists it in `mixins`. The model's own declarations win
 * where both name the same thing; rules run the mixins' first, then the model's.
 */
export interface Mixin {
  /** Fields, given the model itself (a tree's parent points at its own model). */
  fields?: (self: () => ResourceDefinition) => Record<string, Field>;
  /** Where the fields go in the representation: before the model's own, or after (default). */
  first?: boolean;
  filters?: Record<string, CustomFilter>;
  filterAliases?: Record<string, string>;
  features?: Feature[];
  search?: string[];
  tree?: { parent: string };
  rules?: (state: WriteState, w: WriteContext) => Promise<FieldErrors | void> | FieldErrors | void;
  /** Unique sets over the mixin's fields (a component's name per device type), checked before the model's own. */
  uniqueTogether?: UniqueTogether[];
  /** Stored columns no field declares (a natural sort key), set by `beforeSave`. */
  columns?: Record<string, ColumnSpec & { sortable?: boolean }>;
  indexes?: ResourceDefinition['indexes'];
  /** Derived columns, computed before the model's own `beforeSave`. */
  beforeSave?: ResourceDefinition['beforeSave'];
  /** Defaults for what a model usually declares itself (natural key, ordering, display). */
  defaults?: Partial<Pick<ResourceDefinition, 'naturalKey' | 'ordering' | 'display' | 'displayUses' | 'partOf'>>;
}

export const mixin = (m: Mixin): Mixin => m;

/** What a definition declares besides its mixins, merged with them. */
export interface Mixable {
  fields: Record<string, Field>;
  filters?: Record<string, CustomFilter>;
  filterAliases?: Record<string, string>;
  features?: Feature[];
  search?: string[];
  tree?: { parent: string };
  rules?: Mixin['rules'];
  uniqueTogether?: UniqueTogether[];
  columns?: Mixin['columns'];
  indexes?: ResourceDefinition['indexes'];
  beforeSave?: ResourceDefinition['beforeSave'];
  naturalKey?: string[];
  ordering?: string[];
  display?: ResourceDefinition['display'];
  displayUses?: ResourceDefinition['displayUses'];
}

/** The declarations with their mixins' merged in. */
export function applyMixins<T extends Mixable>(input: T, mixins: Mixin[], self: () => ResourceDefinition): T {
  if (!mixins.length) return input;
  const before: Record<string, Field> = {};
  const after: Record<string, Field> = {};
  for (const m of mixins) Object.assign(m.first ? before : after, m.fields?.(self) ?? {});
  const rules = [...mixins.map((m) => m.rules), input.rules].filter((r): r is NonNullable<Mixin['rules']> => !!r);
  const defaults = Object.assign({}, ...mixins.map((m) => m.defaults ?? {}));
  const saves = [...mixins.map((m) => m.beforeSave), input.beforeSave].filter((b): b is NonNullable<Mixin['beforeSave']> => !!b);
  const unique = [...mixins.flatMap((m) => m.uniqueTogether ?? []), ...(input.uniqueTogether ?? [])];
  const columns = Object.assign({}, ...mixins.map((m) => m.columns ?? {}), input.columns ?? {});
  const indexes = [...mixins.flatMap((m) => m.indexes ?? []), ...(input.indexes ?? [])];
  return {
    ...defaults,
    ...input,
    fields: { ...before, ...input.fields, ...after },
    filters: Object.assign({}, ...mixins.map((m) => m.filters ?? {}), input.filters ?? {}),
    filterAliases: Object.assign({}, ...mixins.map((m) => m.filterAliases ?? {}), input.filterAliases ?? {}),
    features: [...new Set([...(input.features ?? []), ...mixins.flatMap((m) => m.features ?? [])])],
    search: [...new Set([...(input.search ?? []), ...mixins.flatMap((m) => m.search ?? [])])],
    tree: input.tree ?? mixins.find((m) => m.tree)?.tree,
    rules: rules.length ? mergeRules(rules) : undefined,
    uniqueTogether: unique.length ? unique : undefined,
    columns: Object.keys(columns).length ? columns : undefined,
    indexes: indexes.length ? indexes : undefined,
    beforeSave: saves.length > 1 ? async (states, w) => { for (const save of saves) await save(states, w); } : saves[0],
  };
}

function mergeRules(rules: NonNullable<Mixin['rules']>[]): NonNullable<Mixin['rules']> {
  if (rules.length === 1) return rules[0];
  return async (state, w) => {
    const errors: FieldErrors = {};
    for (const rule of rules) {
      for (const [k, msgs] of Object.entries((await rule(state, w)) ?? {})) (errors[k] ??= []).push(...msgs);
    }
    return errors;
  };
}

/** A unique name: the natural key, the default ordering and the display, searched by `q`. */
export const named = (maxLength = 100) =>
  mixin({
    fields: () => ({ name: field.string({ required: true, unique: true, maxLength }) }),
    first: true,
    search: ['name'],
    defaults: { naturalKey: ['name'], ordering: ['name'], display: (r) => r.name },
  });

/** One end of a link model: its foreign key, the target, the reverse relation's name, and how the display names the target (its `name` unless `shows` says otherwise). */
export interface LinkEnd {
  name: string;
  target: () => ResourceDefinition;
  relatedName: string;
  /** Default cascade: the link goes with either end; `protect`: an end in use cannot be deleted. */
  onDelete?: 'cascade' | 'protect';
  /** The target is a tree: its filter takes descendants too (locations). */
  tree?: boolean;
  shows?: { columns: string[]; text: (row: Row) => string };
}

/**
 * A link between two objects as an object of its own (a through model: a prefix's locations, a
 * cloud network's prefixes, a group's radio profiles): both keys required, the pair unique, the
 * natural key and ordering the pair, shown as "<a>: <b>". A model overrides what differs; a
 * link that may join the same pair more than once, told apart by its own fields (a secret in a
 * secrets group once per access and secret type), names its unique set in `unique`.
 */
export const link = (a: LinkEnd, b: LinkEnd, opts: { unique?: string[] } = {}) => {
  const text = (end: LinkEnd, row: Row | null) => (row ? (end.shows ? end.shows.text(row) : String(row.name ?? '')) : '');
  return mixin({
    fields: () =>
      Object.fromEntries([a, b].map((e) => [e.name, field.foreignKey(e.target, { required: true, onDelete: e.onDelete ?? 'cascade', relatedName: e.relatedName, ...(e.tree ? { tree: true } : {}) })])),
    first: true,
    uniqueTogether: [{ fields: opts.unique ?? [a.name, b.name] }],
    defaults: {
      naturalKey: [a.name, b.name],
      ordering: [a.name, b.name],
      display: (_r, h) => `${text(a, h.related(a.name))}: ${text(b, h.related(b.name))}`,
      displayUses: { [a.name]: a.shows?.columns ?? ['name'], [b.name]: b.shows?.columns ?? ['name'] },
    },
  });
};

/** A tree: `parent` points at the same model (deleted with it), filters include descendants. */
export const tree = () =>
  mixin({
    fields: (self) => ({ parent: field.foreignKey(self, { nullable: true, onDelete: 'cascade' }) }),
    tree: { parent: 'parent' },
  });
