import { CustomFieldDefinition, validateCustomFieldValue } from '../custom-fields/definitions';
import { defineResource, objectType, WriteContext } from '../../../core/resource/definition';
import { ConflictError } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { checkRegex } from '../../../core/resource/query/lookups';
import { unscoped } from '../../../core/resource/query/rows';
import { ValueError } from '../../../core/resource/query/values';
import { ident, sql } from '../../../database/sql';

export const CUSTOM_FIELD_TYPES = [
  ['text', 'Text'],
  ['integer', 'Integer'],
  ['boolean', 'Boolean (true/false)'],
  ['date', 'Date'],
  ['url', 'URL'],
  ['select', 'Selection'],
  ['multi-select', 'Multiple selection'],
  ['json', 'JSON'],
  ['markdown', 'Markdown'],
] as const;

export const FILTER_LOGIC = [
  ['disabled', 'Disabled'],
  ['loose', 'Loose'],
  ['exact', 'Exact'],
] as const;

const KEY = /^[a-z0-9_]+$/;
const slugKey = (label: string) =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 50);

/**
 * Keeps stored values in step with the field: objects of newly enabled models get the default,
 * models no longer listed (or a deleted field) lose the key.
 */
async function syncStoredValues(w: WriteContext, key: string, enabled: string[], fallback: unknown): Promise<void> {
  const d = w.exec.dialect;
  for (const def of w.ctx.registry.all().filter((x) => x.features.includes('customFields'))) {
    const col = ident('_custom_field_data');
    if (enabled.includes(objectType(def))) {
      await w.exec.execute(sql`UPDATE ${unscoped(def).table} SET ${col} = ${d.jsonSet(col, key, fallback ?? null)} WHERE NOT ${d.jsonHasKey(col, key)}`);
    } else {
      await w.exec.execute(sql`UPDATE ${unscoped(def).table} SET ${col} = ${d.jsonRemoveKey(col, key)} WHERE ${d.jsonHasKey(col, key)}`);
    }
  }
}

export const customFieldResource = defineResource({
  app: 'extras',
  model: 'customfield',
  slug: 'custom-fields',
  verboseName: 'custom field',
  naturalKey: ['key'],
  watched: true,
  ordering: ['weight', 'label'],
  display: (r) => r.label,
  fields: {
    label: field.string({ required: true, unique: true, maxLength: 50, help: 'Name of the field as displayed to users.' }),
    key: field.string({
      unique: true,
      maxLength: 50,
      help: 'Internal field name: lower-case letters, digits and underscores. Defaults to a slug of the label.',
      immutable: 'The key of a custom field cannot be changed once it is created.',
    }),
    type: field.choice(CUSTOM_FIELD_TYPES, { default: 'text', maxLength: 50, immutable: 'The type of a custom field cannot be changed once it is created.' }),
    grouping: field.string({ maxLength: 255, help: 'Custom fields with the same grouping are shown together.' }),
    description: field.string({ maxLength: 200 }),
    required: field.boolean({ help: 'Objects must have a value for this field.' }),
    filter_logic: field.choice(FILTER_LOGIC, { default: 'loose', maxLength: 50, help: 'Loose matches any instance of a given string; exact matches the entire field.' }),
    default: field.json({ nullable: true, help: 'Default value for the field (JSON), e.g. "Foo" or 42.' }),
    weight: field.integer({ default: 100, minValue: 0, maxValue: 32767, help: 'Fields with higher weights appear lower in a form.' }),
    validation_minimum: field.integer({ nullable: true, storage: 'bigint', label: 'Minimum value', help: 'Minimum allowed value (numeric fields) or length (text fields).' }),
    validation_maximum: field.integer({ nullable: true, storage: 'bigint', label: 'Maximum value', help: 'Maximum allowed value (numeric fields) or length (text fields).' }),
    validation_regex: field.string({ maxLength: 500, help: 'Regular expression text values must match, e.g. ^[A-Z]{3}$.' }),
    advanced_ui: field.boolean({ label: 'Move to Advanced tab' }),
    content_types: field.contentTypes({ table: 'extras_customfield_content_types', source: 'customfield_id' }, (d) => d.features.includes('customFields'), {
      required: true,
    }),
  },
  search: ['label', 'key', 'description'],
  features: ['notes'],
  beforeSave(states) {
    for (const s of states) if (s.create && !s.values.key) s.values.key = slugKey(String(s.values.label));
  },
  async rules(s, { exec }) {
    const errors: Record<string, string[]> = {};
    const key = s.values.key || slugKey(String(s.values.label));
    if (!KEY.test(key)) errors.key = ['Key may contain only lower-case letters, digits and underscores.'];
    const type = String(s.values.type);
    if (s.values.validation_regex) {
      // Every later write of a value runs this pattern: refuse one that could tie up the server.
      try {
        checkRegex(String(s.values.validation_regex));
      } catch (e) {
        errors.validation_regex = [e instanceof ValueError && /too (long|costly)/.test(e.message) ? e.message : 'Enter a valid regular expression.'];
      }
    }
    const min = s.values.validation_minimum;
    const max = s.values.validation_maximum;
    if (min !== null && max !== null && min !== undefined && max !== undefined && Number(min) > Number(max)) {
      errors.validation_maximum = ['The maximum must not be smaller than the minimum.'];
    }
    const dflt = s.values.default;
    if (dflt !== null && dflt !== undefined && !errors.validation_regex) {
      const choices = s.existing
        ? (await exec.query<{ value: string }>(sql`SELECT ${ident('value')} FROM ${ident('extras_customfieldchoice')} WHERE ${ident('custom_field_id')} = ${s.existing.id}`)).map((r) => r.value)
        : [];
      const probe = toDefinition({ ...s.values, key, required: false, default: null }, choices);
      if (!['select', 'multi-select'].includes(type) || s.existing) {
        try {
          validateCustomFieldValue(probe, dflt);
        } catch (e) {
          errors.default = [`Invalid default value "${typeof dflt === 'string' ? dflt : JSON.stringify(dflt)}": ${(e as Error).message}`];
        }
      } else errors.default = ['A selection field can have a default only once it has choices; set the default after adding them.'];
    }
    return errors;
  },
  async afterSave(_ids, w, states) {
    for (const s of states) {
      const types = await s.linked('content_types');
      await syncStoredValues(w, String(s.values.key), types, parseDefault(s.values.default));
    }
  },
  async beforeDelete(rows, w) {
    for (const r of rows) await syncStoredValues(w, String(r.key), [], null);
  },
});

/** A stored JSON value: MariaDB hands JSON columns back as text. */
function parseDefault(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** A stored custom field row (+ its choices) as the engine's definition. */
export function toDefinition(r: Record<string, any>, choices: string[]): CustomFieldDefinition {
  return {
    id: String(r.id),
    key: r.key,
    label: r.label,
    type: r.type,
    required: !!r.required,
    default: parseDefault(r.default),
    filterLogic: r.filter_logic,
    validationMinimum: r.validation_minimum === null || r.validation_minimum === undefined ? null : Number(r.validation_minimum),
    validationMaximum: r.validation_maximum === null || r.validation_maximum === undefined ? null : Number(r.validation_maximum),
    validationRegex: r.validation_regex ?? '',
    choices,
    weight: Number(r.weight ?? 100),
  };
}

export const customFieldChoiceResource = defineResource({
  app: 'extras',
  model: 'customfieldchoice',
  partOf: ['custom_field'],
  slug: 'custom-field-choices',
  verboseName: 'custom field choice',
  watched: true,
  naturalKey: ['custom_field', 'value'],
  ordering: ['custom_field', 'weight', 'value'],
  display: (r) => r.value,
  fields: {
    custom_field: field.foreignKey(() => customFieldResource, { required: true, onDelete: 'cascade', limit: () => ({ type__in: ['select', 'multi-select'] }) }),
    value: field.string({ required: true, maxLength: 100 }),
    weight: field.integer({ default: 100, minValue: 0, maxValue: 32767 }),
  },
  uniqueTogether: [{ fields: ['custom_field', 'value'], message: 'The fields custom_field, value must make a unique set.' }],
  search: ['value'],
  features: [],
  /** A choice that objects still use cannot be removed or renamed. */
  async rules(s, { exec, ctx }) {
    if (!s.existing || s.existing.value === s.values.value) return;
    const inUse = await choiceInUse(exec, ctx, String(s.existing.custom_field_id), String(s.existing.value));
    if (inUse) return { value: [`Cannot change choice "${s.existing.value}": objects still use it.`] };
  },
  async beforeDelete(rows, { exec, ctx }) {
    for (const r of rows) {
      if (await choiceInUse(exec, ctx, String(r.custom_field_id), String(r.value))) {
        throw new ConflictError(`Cannot delete choice "${r.value}": objects still use it.`);
      }
    }
  },
});

async function choiceInUse(exec: WriteContext['exec'], ctx: WriteContext['ctx'], fieldId: string, value: string): Promise<boolean> {
  const [cf] = await exec.query(sql`SELECT * FROM ${ident('extras_customfield')} WHERE ${ident('id')} = ${fieldId}`);
  if (!cf) return false;
  const types = await exec.query<{ content_type: string }>(sql`SELECT ${ident('content_type')} FROM ${ident('extras_customfield_content_types')} WHERE ${ident('customfield_id')} = ${fieldId}`);
  const d = exec.dialect;
  for (const { content_type } of types) {
    const def = ctx.registry.get(content_type);
    if (!def) continue;
    const col = ident('_custom_field_data');
    const cond = cf.type === 'multi-select' ? d.jsonArrayContains(col, cf.key, value) : sql`${d.jsonText(col, cf.key)} = ${value}`;
    // Whether any object uses the choice, visible or not.
    const [row] = await exec.query(sql`SELECT 1 AS x ${unscoped(def).from(cond)} LIMIT 1`);
    if (row) return true;
  }
  return false;
}
