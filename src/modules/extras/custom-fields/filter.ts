import { objectType } from '../../../core/resource/definition';
import { PrefixFilter, UnknownFilterError } from '../../../core/resource/extension';
import { DJANGO_ALIASES, escapeLike, NEGATED, NUMBER_LOOKUPS, STRING_LOOKUPS } from '../../../core/resource/query/lookups';
import { parseBoolean, parseDate, ValueError } from '../../../core/resource/query/values';
import { FALSE, ident, inList, or, Sql, sql } from '../../../database/sql';
import { CustomFieldDefinition, customFieldsFor, CustomFieldType } from './definitions';

export const CUSTOM_FIELD_COLUMN = '_custom_field_data';

/** The lookups each type of custom field takes ('' is the bare, exact form). */
const LOOKUPS: Record<CustomFieldType, string[]> = Object.assign(Object.create(null), {
  text: ['', ...STRING_LOOKUPS],
  url: ['', ...STRING_LOOKUPS],
  select: ['', ...STRING_LOOKUPS],
  integer: ['', ...NUMBER_LOOKUPS],
  date: ['', ...NUMBER_LOOKUPS],
  'multi-select': ['', 'n'],
  boolean: [''],
  json: [''],
  markdown: [''],
});

const ORM_PREFIX = `${CUSTOM_FIELD_COLUMN}__`;

/**
 * `cf_<key>[__<lookup>]`. Without a lookup one value (several for selections); text, url and
 * selections take the string lookups, integers and dates the numeric ones; `null` matches a
 * missing or null value; negations also match objects without a value.
 * Permission constraints may also name the stored data as the reference's do
 * (`_custom_field_data__<key>[__<Django lookup>]`): a key that no custom field of the model has
 * is read as text, and matches nothing while no object holds it, as a JSON key lookup does.
 */
export const customFieldFilter: PrefixFilter = {
  prefix: 'cf_',
  constraintPrefix: ORM_PREFIX,
  async compile(h, key, values) {
    const orm = key.startsWith(ORM_PREFIX);
    const rest = key.slice(orm ? ORM_PREFIX.length : 'cf_'.length);
    const defs = await customFieldsFor(h.ctx, objectType(h.def));
    let cf: CustomFieldDefinition | undefined = defs.find((c) => c.key === rest);
    let lookup = '';
    const i = rest.lastIndexOf('__');
    if (!cf && i > 0) {
      cf = defs.find((c) => c.key === rest.slice(0, i));
      lookup = rest.slice(i + 2);
    }
    if (!cf && orm && /^\w+$/.test(rest)) {
      const known = i > 0 && Object.hasOwn(DJANGO_ALIASES, rest.slice(i + 2));
      const name = known ? rest.slice(0, i) : rest;
      cf = { id: '', key: name, label: name, type: 'text', required: false, default: null, filterLogic: 'exact', validationMinimum: null, validationMaximum: null, validationRegex: '', choices: [], weight: 0 };
      lookup = known ? rest.slice(i + 2) : '';
    }
    // The stored spelling is a lookup on the data, not a filter: the field's filter logic does not apply.
    if (orm && cf) cf = { ...cf, filterLogic: 'exact' };
    if (!cf || cf.filterLogic === 'disabled') throw new UnknownFilterError(key);
    if (h.mode !== 'query' && Object.hasOwn(DJANGO_ALIASES, lookup)) lookup = DJANGO_ALIASES[lookup];
    if (!(LOOKUPS[cf.type] ?? ['']).includes(lookup)) throw new UnknownFilterError(key);
    if (h.mode === 'query' && !values.length) return null;
    if (h.mode === 'query' && !lookup && values.length > 1 && !['select', 'multi-select'].includes(cf.type)) {
      throw new ValueError('Only one value may be given without a lookup; use a lookup (e.g. __ic) for several.');
    }
    const d = h.exec.dialect;
    const data = ident(h.alias, CUSTOM_FIELD_COLUMN);
    const negated = Object.hasOwn(NEGATED, lookup);
    const positive = negated ? NEGATED[lookup] : lookup;
    const isNull = (v: unknown) => v === null || (h.mode === 'query' && v === 'null');
    const nullMatch = values.some(isNull) ? sql`(NOT ${d.jsonHasKey(data, cf.key)} OR ${d.jsonText(data, cf.key)} IS NULL)` : null;
    const given = values.filter((v) => !isNull(v));
    let cond: Sql | null = null;
    if (given.length) {
      const text = d.jsonText(data, cf.key);
      switch (cf.type) {
        case 'integer':
          cond = h.scalar({ name: key, type: 'integer' }, d.jsonNumber(data, cf.key), positive, given);
          break;
        case 'date':
          given.forEach((v) => parseDate(v));
          cond = h.scalar({ name: key, type: 'string' }, text, positive, given);
          break;
        case 'boolean':
          cond = inList(text, given.map((v) => String(parseBoolean(v))));
          break;
        case 'multi-select':
          cond = or(given.map((v) => d.jsonArrayContains(data, cf!.key, String(v))));
          break;
        default:
          if (!positive && cf.filterLogic === 'loose' && cf.type !== 'select') cond = or(given.map((v) => d.ilike(text, `%${escapeLike(String(v))}%`)));
          else cond = h.scalar({ name: key, type: 'string' }, text, positive, given);
      }
    }
    const positiveCond = or([nullMatch, cond]);
    return negated ? sql`NOT (COALESCE((${positiveCond}), ${FALSE}))` : positiveCond;
  },
};
