import { Logger } from '@nestjs/common';
import type { Executor } from '../../../database/db';
import { and, FALSE, ident, inList, or, raw, Sql, sql, TRUE } from '../../../database/sql';
import type { RequestContext } from '../../context';
import { CustomFilterHelpers, objectType, ResourceDefinition } from '../definition';
import { ValidationError, FieldErrors } from '../errors';
import { PrefixFilterHelpers, UnknownFilterError } from '../extension';
import type { Constraint, ContentTypesField, Field, ForeignKeyField, ManyToManyField, ScalarField } from '../fields';
import type { RelatedSet } from '../registry';
import { descendantIds } from './tree';
import { contentTypesContains, contentTypesLeaf, discriminator, LinkFrom, links, relatedExists } from './relations';
import { lookupsFor, numberSearch, unalias } from './lookups';
import { fieldInVersion } from '../fields';
import { IdResolver } from './ids';
import { DJANGO_ALIASES, FilterMode, genericPart, NEGATED, NON_FILTER_PARAMS, NONE, nextAlias, NUMBER_LOOKUPS, scalarCondition, STRING_LOOKUPS, TIMESTAMPS, naturalFilterField, escapeLike } from './lookups';
import { isUuid, parseBoolean, parseUuid, ValueError } from './values';
import { Rows, unscoped } from './rows';

export { NON_FILTER_PARAMS, naturalFilterField, escapeLike };
export type { FilterMode };

interface Leaf {
  def: ResourceDefinition;
  alias: string;
  /** `id`, a field, or a set of other objects pointing here. */
  field: Field | 'id' | RelatedSet;
}

interface Step {
  kind: 'fk' | 'm2m' | 'reverse';
  from: ResourceDefinition;
  to: ResourceDefinition;
  field: ForeignKeyField | ManyToManyField;
}

const isRelatedSet = (f: Leaf['field']): f is RelatedSet => typeof f === 'object' && 'def' in f && !('kind' in f);

/**
 * Compiles the filter language (query strings and permission constraints alike) into SQL
 * conditions on one table alias. Lookups come from the field kind; foreign-key paths
 * (`location__parent__name`) become sub-selects, so no join ever multiplies rows.
 */
export class FilterCompiler {
  private readonly logger = new Logger('FilterCompiler');

  /** `visible`: the rows of a model the requester may view, on an alias, read by every traversal and value lookup of a query (query/scope.ts gives it: `filterCompiler`). */
  constructor(
    private readonly ctx: RequestContext,
    private readonly exec: Executor,
    private readonly visible: (def: ResourceDefinition, alias: string) => Promise<Rows>,
  ) {
    this.ids = new IdResolver(exec, visible);
  }

  private readonly ids: IdResolver;

  /**
   * List query parameters -> condition. Unknown parameters are a 400 under STRICT_FILTERING;
   * invalid values are always a 400 naming the parameter.
   */
  async fromQuery(def: ResourceDefinition, params: Map<string, string[]>, alias: string): Promise<Sql> {
    // Keyed by what the client sent: no prototype, so a `__proto__` key is only a key.
    const errors: FieldErrors = Object.create(null);
    const parts: Sql[] = [];
    for (const [key, rawValues] of params) {
      if (NON_FILTER_PARAMS.has(key)) continue;
      const values = rawValues.map((v) => v.trim()).filter((v) => v !== '');
      try {
        const part = await this.term(def, key, values, alias, 'query');
        if (part) parts.push(part);
      } catch (err) {
        if (err instanceof UnknownFilterError) {
          if (this.ctx.settings.STRICT_FILTERING) errors[key] = ['Unknown filter field'];
          else this.logger.warn(`${objectType(def)}: Unknown filter field "${key}"`);
        } else if (err instanceof ValueError) {
          errors[key] = [err.message];
        } else throw err;
      }
    }
    if (Object.keys(errors).length) throw new ValidationError(errors);
    return and(parts);
  }

  /**
   * A constraint object (permission constraints, attribute references): keys in the filter
   * language, values typed JSON; a list value means "any of".
   */
  async fromConstraint(def: ResourceDefinition, constraint: Constraint, alias: string, mode: 'constraint' | 'reference' = 'constraint'): Promise<Sql> {
    const parts: Sql[] = [];
    for (const [key, value] of Object.entries(constraint)) {
      const values = Array.isArray(value) ? value : [value];
      try {
        const part = await this.term(def, key, values, alias, mode);
        parts.push(part ?? TRUE);
      } catch (err) {
        if (err instanceof UnknownFilterError) throw new ValueError(`Cannot resolve keyword "${key}" into a field of ${objectType(def)}.`);
        throw err;
      }
    }
    return and(parts);
  }

  /** Validates a filter key without compiling it (for OPTIONS and error messages). */
  private async term(def: ResourceDefinition, key: string, values: unknown[], alias: string, mode: FilterMode): Promise<Sql | null> {
    if (mode === 'query' && key === 'q') return values.length ? this.search(def, String(values[0]), alias) : null;
    // Parameters an extension owns (`cf_<key>`: custom fields).
    for (const ext of this.ctx.registry.extensionsOf(def)) {
      const f = ext.filter;
      if (f && (key.startsWith(f.prefix) || (mode !== 'query' && f.constraintPrefix && key.startsWith(f.constraintPrefix)))) return f.compile(this.prefixHelpers(def, alias, mode, key), key, values);
    }
    const aliased = unalias(def, key);
    if (aliased !== key) return this.term(def, aliased, values, alias, mode);
    const has = /^has_(\w+)$/.exec(key);
    if (has) {
      const rel = this.ctx.registry.relatedSets(def).find((r) => r.name === has[1]);
      const m2m = def.fields[has[1]];
      if (rel || (m2m && (m2m.kind === 'm2m' || m2m.kind === 'contentTypes'))) {
        if (!values.length) return null;
        const exists = rel ? await this.relatedSetExists(def, rel, alias, mode) : await this.manyExists(def, m2m as ManyToManyField | ContentTypesField, alias, mode);
        return parseBoolean(values[values.length - 1]) ? exists : sql`NOT ${exists}`;
      }
    }
    const custom = this.customFilter(def, key);
    if (custom) {
      if (mode === 'query' && !values.length) return null;
      const vals = custom.filter.boolean ? values.map(parseBoolean) : values;
      // `__n` is the engine's, for every custom filter alike: the positive condition, negated
      // with Django's exclude() semantics (NULL counts as not matching).
      if (custom.lookup === 'n') return sql`NOT (COALESCE((${await custom.filter.compile(vals, '', this.helpers(def, alias, key, mode))}), ${FALSE}))`;
      return custom.filter.compile(vals, custom.lookup, this.helpers(def, alias, key, mode));
    }
    const { steps, leaf, lookup } = this.resolve(def, key, mode);
    if (mode === 'query' && !values.length) return null;
    // Build the innermost condition, then wrap it in the traversal sub-selects.
    const aliases = [alias, ...steps.map(() => nextAlias())];
    const leafAlias = aliases[aliases.length - 1];
    const negated = lookup in NEGATED;
    const positiveLookup = negated ? NEGATED[lookup] : lookup;
    let cond = await this.leaf({ ...leaf, alias: leafAlias }, positiveLookup, values, mode, key);
    // Django semantics for constraints: `parent__name=None` also matches when there is no parent.
    const matchesNull = mode !== 'query' && (values.some((v) => v === null) || (positiveLookup === 'isnull' && values.some((v) => v === true || v === 'true')));
    for (let i = steps.length - 1; i >= 0; i--) {
      const s = steps[i];
      const outer = aliases[i];
      const inner = aliases[i + 1];
      // A client's filter sees only what it may view: a path through objects outside the
      // requester's scope matches nothing (no probing of hidden objects' attributes).
      const rows = await this.rows(s.to, inner, mode);
      if (s.kind === 'fk') {
        const f = s.field as ForeignKeyField;
        cond = sql`${ident(outer, f.column)} IN ${rows.select('id', cond)}`;
        if (matchesNull) cond = sql`(${ident(outer, f.column)} IS NULL OR ${cond})`;
      } else if (s.kind === 'reverse') {
        cond = await relatedExists(s.from, { name: '', def: s.to, field: s.field }, outer, rows, cond, await this.relatedLinks(s.field, mode));
      } else {
        const f = s.field as ManyToManyField;
        const th = nextAlias();
        const links = await this.links(f, th, mode);
        cond = sql`EXISTS (SELECT 1 ${links(sql` ${rows.join(sql`${ident(inner, 'id')} = ${ident(th, f.through.target)}`)}`, sql`${ident(th, f.through.source)} = ${ident(outer, 'id')}${discriminator(f, th, s.from)}`, cond)})`;
      }
    }
    return negated ? sql`NOT (COALESCE((${cond}), ${FALSE}))` : cond;
  }

  private helpers(def: ResourceDefinition, alias: string, key: string, mode: FilterMode): CustomFilterHelpers {
    return {
      alias,
      ctx: this.ctx,
      exec: this.exec,
      def,
      col: (c) => ident(alias, c),
      invalid: (m) => {
        throw new ValueError(m);
      },
      mode,
      resolveIds: (target, vals) => (mode === 'query' ? this.ids.resolveIds(target, vals, key) : this.ids.constraintIds(target, vals, mode)),
      term: (k, vals) => this.term(def, k, vals, alias, mode),
      rows: (target, a) => this.rows(target, a, mode),
    };
  }

  private prefixHelpers(def: ResourceDefinition, alias: string, mode: FilterMode, key: string): PrefixFilterHelpers {
    const dialect = this.exec.dialect;
    return {
      ctx: this.ctx,
      exec: this.exec,
      def,
      alias,
      mode,
      scalar: (f, expr, lookup, values) => scalarCondition(dialect, f, expr, lookup, values, mode),
      resolveIds: (target, vals) => (mode === 'query' ? this.ids.resolveIds(target, vals, key) : this.ids.constraintIds(target, vals, mode)),
      rows: (target, a) => this.rows(target, a, mode),
    };
  }

  /**
   * `has_<related>`: objects that some object of the set points at. A client's filter counts only
   * the objects it may view (`has_children=true` must not reveal a hidden child); a permission
   * constraint counts all of them.
   */
  private async relatedSetExists(owner: ResourceDefinition, rel: RelatedSet, alias: string, mode: FilterMode): Promise<Sql> {
    return relatedExists(owner, rel, alias, await this.rows(rel.def, nextAlias(), mode), null, await this.relatedLinks(rel.field, mode));
  }

  /** The links of a many-to-many field as a filter may read them (query/relations.ts, `links`). */
  private links(f: ManyToManyField | ContentTypesField, th: string, mode: FilterMode): Promise<LinkFrom> {
    return links(this.ctx.registry, this.visible, f, th, mode);
  }

  /** `links` for a related set's field: a reverse many-to-many's links (a foreign key has none). */
  private async relatedLinks(f: ForeignKeyField | ManyToManyField, mode: FilterMode): Promise<((th: string) => Promise<LinkFrom>) | undefined> {
    return f.kind === 'm2m' ? (th) => this.links(f, th, mode) : undefined;
  }

  /** Objects that have at least one link in a many-to-many field (to an object the client may view, in a query). */
  private async manyExists(owner: ResourceDefinition, f: ManyToManyField | ContentTypesField, alias: string, mode: FilterMode): Promise<Sql> {
    const th = nextAlias();
    if (f.kind === 'contentTypes') return sql`EXISTS (SELECT 1 FROM ${ident(f.through.table)} ${ident(th)} WHERE ${ident(th, f.through.source)} = ${ident(alias, 'id')})`;
    const disc = discriminator(f, th, owner);
    if (mode === 'constraint') return sql`EXISTS (SELECT 1 FROM ${ident(f.through.table)} ${ident(th)} WHERE ${ident(th, f.through.source)} = ${ident(alias, 'id')}${disc})`;
    const to = await this.visible(f.target(), nextAlias());
    const links = await this.links(f, th, mode);
    return sql`EXISTS (SELECT 1 ${links(sql` ${to.join(sql`${ident(to.alias, 'id')} = ${ident(th, f.through.target)}`)}`, sql`${ident(th, f.through.source)} = ${ident(alias, 'id')}${disc}`)})`;
  }

  private customFilter(def: ResourceDefinition, key: string) {
    const filters = def.filters ?? NONE;
    if (Object.hasOwn(filters, key)) return { filter: filters[key], lookup: '' };
    const i = key.lastIndexOf('__');
    if (i > 0) {
      const f = Object.hasOwn(filters, key.slice(0, i)) ? filters[key.slice(0, i)] : undefined;
      const lookup = key.slice(i + 2);
      if (f && (f.lookups ?? []).includes(lookup)) return { filter: f, lookup };
    }
    return null;
  }

  /** Splits `a__b__c__lookup` into traversal steps, the leaf field and the lookup. */
  resolve(def: ResourceDefinition, key: string, mode: FilterMode): { steps: Step[]; leaf: Leaf; lookup: string } {
    const segs = key.split('__');
    const steps: Step[] = [];
    let cur = def;
    for (let i = 0; i < segs.length; i++) {
      let seg = segs[i];
      const rest = segs.length - i - 1;
      if (seg === 'pk' && mode !== 'query') seg = 'id';
      let f: Field | 'id' | undefined = seg === 'id' ? 'id' : cur.fields[seg];
      if (!f) f = genericPart(cur, seg) ?? TIMESTAMPS[seg];
      if (!f) {
        const rel = this.ctx.registry.relatedSets(cur).find((r) => r.name === seg);
        if (!rel) throw new UnknownFilterError(key);
        const next = segs[i + 1];
        // On through a field of the related model, or through another reverse relation of it (a provider's circuits' terminations).
        if (rest > 0 && (next === 'id' || rel.def.fields[next] || (rest > 1 && this.ctx.registry.relatedSets(rel.def).some((r) => r.name === next)))) {
          steps.push({ kind: 'reverse', from: cur, to: rel.def, field: rel.field });
          cur = rel.def;
          continue;
        }
        const lookup = rest === 1 ? segs[i + 1] : '';
        if (rest > 1 || !['', 'n'].includes(lookup)) throw new UnknownFilterError(key);
        return { steps, leaf: { def: cur, alias: '', field: rel }, lookup };
      }
      if (f !== 'id' && f.filter === false && mode !== 'constraint') throw new UnknownFilterError(key);
      if (f !== 'id' && !fieldInVersion(f, this.ctx.apiVersion)) throw new UnknownFilterError(key);
      if (rest > 0 && f !== 'id' && (f.kind === 'fk' || f.kind === 'm2m')) {
        const target = f.target();
        const next = segs[i + 1] === 'pk' && mode !== 'query' ? 'id' : segs[i + 1];
        if (next === 'id' || target.fields[next]) {
          steps.push({ kind: f.kind === 'fk' ? 'fk' : 'm2m', from: cur, to: target, field: f });
          cur = target;
          continue;
        }
      }
      if (rest > 1) throw new UnknownFilterError(key);
      let lookup = rest === 1 ? segs[i + 1] : '';
      if (mode !== 'query' && lookup in DJANGO_ALIASES) lookup = DJANGO_ALIASES[lookup];
      if (!lookupsFor(f, mode).includes(lookup)) throw new UnknownFilterError(key);
      return { steps, leaf: { def: cur, alias: '', field: f }, lookup };
    }
    throw new UnknownFilterError(key);
  }

  private async leaf(leaf: Leaf, lookup: string, values: unknown[], mode: FilterMode, key: string): Promise<Sql> {
    const { def, alias, field: f } = leaf;
    if (lookup === 'isnull') {
      const isNull = parseBoolean(values[values.length - 1]);
      const col = f === 'id' ? ident(alias, 'id') : ident(alias, (f as ScalarField | ForeignKeyField).column);
      return isNull ? sql`${col} IS NULL` : sql`${col} IS NOT NULL`;
    }
    if (isRelatedSet(f)) {
      const ids = mode === 'query' ? await this.ids.resolveIds(f.def, values, key) : await this.ids.constraintIds(f.def, values, mode);
      // The ids were resolved among the objects the requester may view (a query, a reference).
      return relatedExists(def, f, alias, unscoped(f.def, 'r'), inList(ident('r', 'id'), ids), await this.relatedLinks(f.field, mode));
    }
    if (f === 'id') {
      const ids = values.map((v) => {
        try {
          return parseUuid(v);
        } catch {
          throw new ValueError(`"${String(v)}" is not a valid UUID.`);
        }
      });
      return inList(ident(alias, 'id'), ids);
    }
    switch (f.kind) {
      case 'scalar':
        return scalarCondition(this.exec.dialect, f, ident(alias, f.column), lookup, values, mode);
      case 'fk':
        return this.foreignKeyLeaf(f, alias, values, mode, key);
      case 'm2m':
        return this.manyLeaf(def, f, alias, values, mode, key);
      case 'contentTypes':
        if (lookup === 'ic') return contentTypesContains(this.exec.dialect, f, alias, values);
        if (mode === 'query') {
          // A content type is a model's `app_label.model`: one that names no model is a 400, not an empty list.
          const unknown = values.find((v) => !this.ctx.registry.get(String(v)));
          if (unknown !== undefined) throw new ValueError(`Select a valid choice. ${String(unknown)} is not one of the available choices.`);
        }
        return contentTypesLeaf(f, alias, values);
      default:
        throw new UnknownFilterError(key);
    }
  }

  /** Values of a foreign-key filter are UUIDs or the target's name; each must exist. */
  private async foreignKeyLeaf(f: ForeignKeyField, alias: string, values: unknown[], mode: FilterMode, key: string): Promise<Sql> {
    const target = f.target();
    const col = ident(alias, f.column);
    const wantsNull = values.some((v) => v === null || (mode === 'query' && v === 'null'));
    const given = values.filter((v) => !(v === null || (mode === 'query' && v === 'null')));
    if (mode !== 'query') {
      const ids = given.filter(isUuid).map((v) => parseUuid(v));
      const names = given.filter((v) => !isUuid(v));
      const nameField = naturalFilterField(target);
      if (mode === 'reference') {
        // Only objects the requester may view can be matched, by id or by name.
        const a = nextAlias();
        const match = or([ids.length ? inList(ident(a, 'id'), ids) : null, names.length && nameField ? inList(ident(a, nameField), names.map(String)) : null]);
        const visible = ids.length || (names.length && nameField) ? sql`${col} IN ${(await this.visible(target, a)).select('id', match)}` : null;
        return or([wantsNull ? sql`${col} IS NULL` : null, visible]);
      }
      // A constraint names among all objects (it cannot depend on the scope it may be computing).
      const byName = names.length && nameField ? sql`${col} IN ${unscoped(target).select('id', inList(ident(nameField), names.map(String)))}` : null;
      return or([wantsNull ? sql`${col} IS NULL` : null, ids.length ? inList(col, ids) : null, byName]);
    }
    let ids = given.length ? await this.ids.resolveIds(target, given, key) : [];
    if (f.tree && ids.length) ids = await descendantIds(this.exec, target, ids);
    return or([wantsNull ? sql`${col} IS NULL` : null, ids.length ? sql`(${col} IS NOT NULL AND ${inList(col, ids)})` : null]);
  }

  /** The rows a traversal reads: those the requester may view, but in a permission constraint, all of them. */
  private rows(def: ResourceDefinition, alias: string, mode: FilterMode): Promise<Rows> {
    return mode === 'constraint' ? Promise.resolve(unscoped(def, alias)) : this.visible(def, alias);
  }

  /** Many-to-many (tags, locations): every value must match (AND) for tags, any for others. */
  private async manyLeaf(owner: ResourceDefinition, f: ManyToManyField, alias: string, values: unknown[], mode: FilterMode, key: string): Promise<Sql> {
    const target = f.target();
    let ids = mode === 'query' ? await this.ids.resolveIds(target, values, key) : await this.ids.constraintIds(target, values, mode);
    if (f.tree && ids.length && !f.filterAll) ids = await descendantIds(this.exec, target, ids);
    const exists = async (idList: string[]) => {
      const th = nextAlias();
      const links = await this.links(f, th, mode);
      return sql`EXISTS (SELECT 1 ${links(sql``, sql`${ident(th, f.through.source)} = ${ident(alias, 'id')}${discriminator(f, th, owner)}`, inList(ident(th, f.through.target), idList))})`;
    };
    if (f.filterAll) {
      // One value per parameter may match several objects (a name and a UUID); each parameter must match.
      const perValue = mode === 'query' ? await Promise.all(values.map((v) => this.ids.resolveIds(target, [v], key))) : ids.map((i) => [i]);
      return and(await Promise.all(perValue.map(exists)));
    }
    return exists(ids);
  }

  /** `q`: case-insensitive contains over the model's search fields, or the exact id. */
  private async search(def: ResourceDefinition, value: string, alias: string): Promise<Sql> {
    const parts: Sql[] = [];
    for (const key of def.search ?? ['name']) {
      const f = def.fields[key];
      if (f?.kind === 'scalar' && (f.type === 'integer' || f.type === 'decimal')) {
        const exact = numberSearch(f, alias, value);
        if (exact) parts.push(exact);
        continue;
      }
      const part = await this.term(def, `${key}__ic`, [value], alias, 'query').catch((e) => {
        if (e instanceof UnknownFilterError) return null;
        throw e;
      });
      if (part) parts.push(part);
    }
    if (isUuid(value)) parts.push(sql`${ident(alias, 'id')} = ${parseUuid(value)}`);
    // A model may add its own predicates to `q` (IPAM matches partial addresses).
    if (def.filters?.q) parts.push(await def.filters.q.compile([value], '', this.helpers(def, alias, 'q', 'query')));
    return or(parts);
  }
}

