import { checkJsonDepth } from '../../../core/resource/json-limits';
import { objectType } from '../../../core/resource/definition';
import type { GraphqlPart, GraphqlScalar, ModelExtension } from '../../../core/resource/extension';
import { csvCell, NULL } from '../../../core/resource/csv/csv-cells';
import { parseJsonObject } from '../../../core/resource/serialize/values';
import { customFieldsFor, CustomFieldDefinition, CustomFieldType, validateCustomFieldValue } from './definitions';
import { CUSTOM_FIELD_COLUMN, customFieldFilter } from './filter';

/**
 * Custom fields on every model with the `customFields` feature: stored as one JSON column, shown
 * as `custom_fields` (every field of the model's content type, null when unset), written under
 * the same key (validated by type, defaults applied on create, required ones enforced), filtered
 * as `cf_<key>[__<lookup>]`, and exported and imported as `cf_<key>` CSV columns (JSON fields as
 * JSON text, multi-selects comma-joined, `[]` for an empty selection).
 */
export const customFieldsExtension: ModelExtension = {
  feature: 'customFields',
  columns: [{ name: CUSTOM_FIELD_COLUMN, type: 'json', nullable: false }],
  represent: {
    keys: { custom_fields: { schema: { type: 'object' }, type: 'json', label: 'Custom fields', writable: true } },
    load: ({ ctx, def }) => customFieldsFor(ctx, objectType(def)),
    reads: ['extras.customfield', 'extras.customfieldchoice'],
    write(out, row, _url, loaded) {
      const data = parseJsonObject(row[CUSTOM_FIELD_COLUMN]);
      const cf: Record<string, unknown> = {};
      for (const c of loaded as CustomFieldDefinition[]) cf[c.key] = data[c.key] ?? null;
      out.custom_fields = cf;
    },
    /** GraphQL's `_custom_field_data` and `cf_<key>` (fields and filters), as the reference's generated types: keys that are GraphQL names only. */
    async graphql({ ctx, def }) {
      const defs = (await customFieldsFor(ctx, objectType(def))).filter((c) => /^[_A-Za-z][_0-9A-Za-z]*$/.test(c.key));
      const data = (o: Record<string, unknown>) => (o.custom_fields ?? {}) as Record<string, unknown>;
      const fields: GraphqlPart['fields'] = { _custom_field_data: { type: 'JSON', read: data } };
      for (const c of defs) fields[`cf_${c.key}`] = { type: GRAPHQL_TYPES[c.type] ?? 'JSON', description: c.label, read: (o) => data(o)[c.key] };
      return { fields, filters: defs.map((c) => `cf_${c.key}`) };
    },
  },
  filter: customFieldFilter,
  write: {
    key: 'custom_fields',
    async prepare({ ctx, def, create }, items) {
      const defs = await customFieldsFor(ctx, objectType(def));
      for (const item of items) {
        const sent = item.given;
        if (sent !== undefined && sent !== null && (typeof sent !== 'object' || Array.isArray(sent))) {
          item.addError('custom_fields', 'Invalid data. Expected a dictionary.');
          continue;
        }
        const given = (sent ?? {}) as Record<string, unknown>;
        const data: Record<string, unknown> = create ? {} : { ...parseJsonObject(item.existing?.[CUSTOM_FIELD_COLUMN]) };
        for (const cf of defs) {
          if (!Object.hasOwn(given, cf.key)) {
            if (create || !Object.hasOwn(data, cf.key)) data[cf.key] = cf.default ?? null;
            if (cf.required && (data[cf.key] === null || data[cf.key] === undefined)) item.addError('non_field_errors', `Missing required custom field '${cf.key}'.`);
            continue;
          }
          try {
            data[cf.key] = validateCustomFieldValue(cf, given[cf.key]);
          } catch (e) {
            item.addError('non_field_errors', `Invalid value for custom field '${cf.key}': ${(e as Error).message}`);
          }
        }
        if (sent !== undefined || create) item.set(CUSTOM_FIELD_COLUMN, data);
      }
    },
  },
  csv: {
    async columns({ ctx, def }) {
      const cfs = [...(await customFieldsFor(ctx, objectType(def)))].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      return cfs.map((cf) => ({ header: `cf_${cf.key}`, data: cf }));
    },
    cell(column, rep) {
      const cf = column.data as CustomFieldDefinition;
      const v = (rep.custom_fields as Record<string, unknown> | undefined)?.[cf.key];
      if (v === null || v === undefined) return '';
      // JSON values as JSON text, so a number stays a number and a string a string; an empty
      // selection is `[]`, told apart from an unset field (an empty cell).
      if (cf.type === 'multi-select' && Array.isArray(v) && !v.length) return '[]';
      return cf.type === 'json' ? JSON.stringify(v) : csvCell(v);
    },
    async read(header, raw, input, { ctx, def }) {
      if (!header.startsWith('cf_')) return false;
      const key = header.slice(3);
      const type = (await customFieldsFor(ctx, objectType(def))).find((c) => c.key === key)?.type;
      const cf = (input.custom_fields ??= Object.create(null)) as Record<string, unknown>;
      cf[key] = raw === '' || raw === NULL ? null : cellValue(type, raw);
      return true;
    },
  },
};

/** The GraphQL type of a custom field's `cf_<key>` by its type (JSON for lists and JSON, and for integers past 32 bits). */
const GRAPHQL_TYPES: Partial<Record<CustomFieldType, GraphqlScalar>> = { text: 'String', url: 'String', select: 'String', markdown: 'String', date: 'String', boolean: 'Boolean' };

/** A custom field cell by the field's type (an unknown key is passed on for the writer to refuse). */
function cellValue(type: CustomFieldType | undefined, raw: string): unknown {
  if (type === 'multi-select') return raw.trim() === '[]' ? [] : raw.split(',').map((x) => x.trim()).filter(Boolean);
  if (type === 'json' || !type) {
    const s = raw.trim();
    if (type === 'json' || s.startsWith('{') || s.startsWith('[')) {
      let value: unknown;
      try {
        value = JSON.parse(s);
      } catch {
        return raw;
      }
      checkJsonDepth(value);
      return value;
    }
  }
  return raw;
}
