import type { Dialect } from '../../../database/dialect';
import { ident, inList, or, raw, Sql, sql } from '../../../database/sql';
import { ownMap, ResourceDefinition } from '../definition';
import { fieldInVersion, type Field, type ScalarField } from '../fields';
import type { RequestContext } from '../../context';
import { parseBoolean, parseDate, parseDateTime, parseDecimal, parseInteger, parseUuid, ValueError } from './values';

/**
 * The filter language's vocabulary: which lookups exist, their Django names, negations, the
 * bounds on regular expressions, and the condition of a scalar lookup. Shared by the filter
 * compiler and by extensions that filter stored values of their own (custom fields).
 */

/** Query parameters that are never filters (the reference's NON_FILTER_QUERY_PARAMS). */
export const NON_FILTER_PARAMS = new Set(['api_version', 'depth', 'exclude_m2m', 'format', 'include', 'limit', 'offset', 'sort']);

/**
 * - `query`: a query string; string values, every traversal and value resolution scoped to what
 *   the requester may view, a value naming no visible object a 400.
 * - `constraint`: a permission constraint; typed JSON values with Django semantics, resolved
 *   among all objects (a constraint must not depend on the scope it may be computing).
 * - `reference`: attributes naming a related object on write, or a natural key in a URL;
 *   typed like a constraint, scoped like a query, so a write cannot probe hidden objects.
 */
export type FilterMode = 'query' | 'constraint' | 'reference';

export const STRING_LOOKUPS = ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 're', 'nre', 'ire', 'nire'];
export const NUMBER_LOOKUPS = ['n', 'lt', 'lte', 'gt', 'gte'];
/** Django lookup names accepted in permission constraints and attribute references. */
export const DJANGO_ALIASES: Record<string, string> = ownMap({
  exact: '',
  in: '',
  iexact: 'ie',
  icontains: 'ic',
  istartswith: 'isw',
  iendswith: 'iew',
  regex: 're',
  iregex: 'ire',
  contains: 'c',
  startswith: 'sw',
  endswith: 'ew',
});
export const NEGATED: Record<string, string> = ownMap({ n: '', nic: 'ic', nisw: 'isw', niew: 'iew', nie: 'ie', nre: 're', nire: 'ire' });

/** Bounds the cost of a regular expression a client sends (the database runs it). */
const MAX_REGEX_LENGTH = 256;
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{?]/;

/** An empty map for definitions without filters or aliases: only own keys ever name anything. */
export const NONE: Record<string, never> = Object.freeze(Object.create(null));

let aliasCounter = 0;
export const nextAlias = () => `f${(aliasCounter = (aliasCounter + 1) % 1_000_000)}`;

/** The condition of one scalar lookup on an expression, in a dialect (values parsed by the field's type). */
export function scalarCondition(d: Dialect, f: Pick<ScalarField, 'type' | 'name' | 'choices'>, col: Sql, lookup: string, values: unknown[], mode: FilterMode): Sql {
  const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  const like = (v: unknown, pre: string, post: string) => pre + escapeLike(str(v)) + post;
  const text = f.type === 'string' || f.type === 'text' || f.type === 'uuid' ? col : d.castText(col);
  switch (lookup) {
    case '': {
      if (mode !== 'query' && values.some((v) => v === null)) {
        const rest = values.filter((v) => v !== null);
        return or([sql`${col} IS NULL`, rest.length ? scalarCondition(d, f, col, '', rest, mode) : null]);
      }
      const typed = values.map((v) => parseScalar(f, v));
      return sql`(${col} IS NOT NULL AND ${inList(col, typed.map((v) => d.toDb(v, f.type === 'json' ? 'json' : 'string')))})`;
    }
    case 'ic':
      return or(values.map((v) => (f.type === 'json' ? d.ilike(d.castText(col), like(v, '%', '%')) : d.ilike(text, like(v, '%', '%')))));
    case 'isw':
      return or(values.map((v) => d.ilike(text, like(v, '', '%'))));
    case 'iew':
      return or(values.map((v) => d.ilike(text, like(v, '%', ''))));
    case 'c':
      return or(values.map((v) => d.like(text, like(v, '%', '%'))));
    case 'sw':
      return or(values.map((v) => d.like(text, like(v, '', '%'))));
    case 'ew':
      return or(values.map((v) => d.like(text, like(v, '%', ''))));
    case 'ie':
      // Both sides folded by the database, by the same rules.
      return sql`(${text} IS NOT NULL AND ${or(values.map((v) => sql`${d.lower(text)} = ${d.lower(str(v))}`))})`;
    case 're':
    case 'ire':
      return or(values.map((v) => d.regex(text, checkRegex(str(v)), lookup === 'ire')));
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const op = raw({ lt: ' < ', lte: ' <= ', gt: ' > ', gte: ' >= ' }[lookup]);
      return or(values.map((v) => sql`${col}${op}${parseScalar(f, v)}`));
    }
    default:
      throw new ValueError(`Unsupported lookup "${lookup}".`);
  }
}

/** A filter value as the field's type, or a ValueError with the reference's message. */
export function parseScalar(f: Pick<ScalarField, 'type' | 'choices'>, v: unknown): unknown {
  if (f.choices && (f.type === 'string' || f.type === 'integer')) {
    const match = f.choices.find(([value]) => String(value) === String(v));
    if (!match) throw new ValueError(`Select a valid choice. ${String(v)} is not one of the available choices.`);
    return match[0];
  }
  switch (f.type) {
    case 'integer':
      return parseInteger(v);
    case 'decimal':
      return parseDecimal(v);
    case 'boolean':
      return parseBoolean(v);
    case 'date':
      return parseDate(v);
    case 'datetime':
      return parseDateTime(v);
    case 'uuid':
      return parseUuid(v);
    default:
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

/**
 * `created` and `last_updated`, which every model stores: filtered as date-times with the
 * numeric lookups (`last_updated__gte=` is how sync jobs fetch what changed).
 */
export const TIMESTAMPS: Record<string, ScalarField | undefined> = {
  created: { kind: 'scalar', name: 'created', column: 'created', type: 'datetime', nullable: false, filter: true } as ScalarField,
  last_updated: { kind: 'scalar', name: 'last_updated', column: 'last_updated', type: 'datetime', nullable: false, filter: true } as ScalarField,
};
Object.setPrototypeOf(TIMESTAMPS, null);

/** `<gfk>_type` / `<gfk>_id` of a generic foreign key, filtered as plain columns. */
export function genericPart(def: ResourceDefinition, seg: string): ScalarField | undefined {
  for (const f of Object.values(def.fields)) {
    if (f.kind !== 'gfk' || f.filter === false) continue;
    if (seg === f.typeKey!) return { kind: 'scalar', name: seg, column: f.typeColumn, type: 'string', nullable: f.nullable, filter: true } as ScalarField;
    if (seg === f.idKey!) return { kind: 'scalar', name: seg, column: f.idColumn, type: 'uuid', nullable: f.nullable, filter: true } as ScalarField;
  }
  return undefined;
}

/** The column a foreign-key filter matches non-UUID values against (usually `name`). */
export function naturalFilterField(def: ResourceDefinition): string | null {
  const f = def.fields[def.filterName ?? 'name'] ?? (def.naturalKey.length === 1 ? def.fields[def.naturalKey[0]] : undefined);
  return f && f.kind === 'scalar' ? f.column : null;
}

export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** Refuses patterns whose matching cost can explode (nested quantifiers) or that are huge. */
export function checkRegex(p: string): string {
  if (p.length > MAX_REGEX_LENGTH) throw new ValueError(`Regular expression is too long (at most ${MAX_REGEX_LENGTH} characters).`);
  if (NESTED_QUANTIFIER.test(p) || /\\\d/.test(p)) throw new ValueError('Regular expression is too costly (nested quantifiers or back-references are not allowed).');
  try {
    new RegExp(p);
  } catch {
    throw new ValueError(`Invalid regular expression: ${p}`);
  }
  return p;
}

/** The lookups a field kind accepts ('' is the bare, exact form). */
export function lookupsFor(f: Field | 'id', mode: FilterMode): string[] {
  const extra = mode !== 'query' ? ['c', 'sw', 'ew'] : [];
  if (f === 'id') return ['', 'n'];
  const nullable = 'nullable' in f && f.nullable ? ['isnull'] : [];
  switch (f.kind) {
    case 'scalar':
      if (f.type === 'string' || f.type === 'text') return ['', ...STRING_LOOKUPS, ...extra, ...nullable];
      if (f.type === 'boolean') return ['', ...nullable];
      if (f.type === 'json') return ['', 'ic', ...nullable];
      if (f.type === 'uuid') return ['', 'n', ...nullable];
      return ['', ...NUMBER_LOOKUPS, ...nullable];
    case 'fk':
      return ['', 'n', ...nullable];
    case 'm2m':
      return ['', 'n'];
    case 'contentTypes':
      return ['', 'n', 'ic'];
    default:
      return [];
  }
}
/**
 * `q` over a number field: an exact match, and only when the text is a number the column can hold
 * (`q=5.5` or a 30-digit number against an integer column matches nothing, not a 400).
 */
export function numberSearch(f: Pick<ScalarField, 'type' | 'column' | 'minValue' | 'maxValue'>, alias: string, value: string): Sql | null {
  const text = value.trim();
  const n = Number(text);
  const fits = f.type === 'integer' ? /^-?\d{1,15}$/.test(text) && n >= (f.minValue ?? -2147483648) && n <= (f.maxValue ?? 2147483647) : /^-?\d{1,15}(\.\d{1,15})?$/.test(text);
  return fits ? sql`${ident(alias, f.column)} = ${text}` : null;
}

/** A key with its model's declared alias applied: `tenant_group` on locations means `tenant__tenant_group`. */
export function unalias(def: ResourceDefinition, key: string): string {
  const aliases = def.filterAliases ?? NONE;
  const i = key.indexOf('__');
  const head = i === -1 ? key : key.slice(0, i);
  return Object.hasOwn(aliases, head) ? aliases[head] + (i === -1 ? '' : key.slice(i)) : key;
}

/**
 * The fields a list filters by with their plain (exact) lookup, in declaration order: what the
 * browsable API offers as filter inputs (every lookup of `lookupsFor` is still accepted).
 */
export function plainFilterFields(ctx: RequestContext, def: ResourceDefinition): Field[] {
  return Object.values(def.fields).filter(
    (f) =>
      f.filter !== false &&
      !f.writeOnly &&
      fieldInVersion(f, ctx.apiVersion) &&
      (f.kind === 'fk' || f.kind === 'm2m' || f.kind === 'contentTypes' || (f.kind === 'scalar' && f.type !== 'json' && !f.listOf)) &&
      lookupsFor(f, 'query').includes(''),
  );
}
