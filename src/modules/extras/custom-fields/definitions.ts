import { MAX_STORED_JSON_DEPTH, nestedDeeperThan, STORED_DEPTH_MESSAGE } from '../../../core/resource/json-limits';
import type { RequestContext } from '../../../core/context';

export type CustomFieldType = 'text' | 'integer' | 'boolean' | 'date' | 'url' | 'select' | 'multi-select' | 'json' | 'markdown';

/** What the engine needs to know of one custom field. */
export interface CustomFieldDefinition {
  id: string;
  key: string;
  label: string;
  type: CustomFieldType;
  required: boolean;
  default: unknown;
  filterLogic: 'loose' | 'exact' | 'disabled';
  validationMinimum: number | null;
  validationMaximum: number | null;
  validationRegex: string;
  choices: string[];
  weight: number;
}

/** Supplies every custom field, by content type (the extras app's source; see source.ts). */
export interface CustomFieldSource {
  byType(ctx: RequestContext): Promise<Map<string, CustomFieldDefinition[]>>;
}

/** The key the source is registered under with the registry (`registry.provide`). */
export const CUSTOM_FIELD_SOURCE = 'extras.custom-field-source';

/** Custom fields of a content type; all of them are loaded once per request, in one statement. */
export async function customFieldsFor(ctx: RequestContext, objectType: string): Promise<CustomFieldDefinition[]> {
  const source = ctx.registry.service<CustomFieldSource>(CUSTOM_FIELD_SOURCE);
  if (!source) return [];
  const all = await ctx.memo('custom-fields', () => source.byType(ctx));
  return all.get(objectType) ?? [];
}

const URL_RE = /^[a-z][a-z0-9+.-]*:\/\/[^\s/$.?#].[^\s]*$/i;

/** Validates one custom field value; returns the stored value or throws an Error with the message. */
export function validateCustomFieldValue(cf: CustomFieldDefinition, value: unknown): unknown {
  if (value === null || value === undefined || value === '') {
    if (cf.required) throw new Error('Required field cannot be empty.');
    return null;
  }
  switch (cf.type) {
    case 'text':
    case 'markdown':
    case 'url': {
      if (typeof value !== 'string') throw new Error('Value must be a string');
      if (cf.validationMinimum !== null && value.length < cf.validationMinimum) throw new Error(`Value must be at least ${cf.validationMinimum} characters in length`);
      if (cf.validationMaximum !== null && value.length > cf.validationMaximum) throw new Error(`Value must not exceed ${cf.validationMaximum} characters in length`);
      if (cf.validationRegex && !new RegExp(cf.validationRegex).test(value)) throw new Error(`Value must match regex '${cf.validationRegex}'`);
      if (cf.type === 'url' && !URL_RE.test(value)) throw new Error('Enter a valid URL.');
      return value;
    }
    case 'integer': {
      let n: number;
      if (typeof value === 'number' && Number.isInteger(value)) n = value;
      else if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) n = Number(value);
      else throw new Error('Value must be an integer.');
      if (cf.validationMinimum !== null && n < cf.validationMinimum) throw new Error(`Value must be at least ${cf.validationMinimum}`);
      if (cf.validationMaximum !== null && n > cf.validationMaximum) throw new Error(`Value must not exceed ${cf.validationMaximum}`);
      return n;
    }
    case 'boolean':
      if (value === true || value === false) return value;
      if (value === 'true' || value === 'True' || value === 1 || value === '1') return true;
      if (value === 'false' || value === 'False' || value === 0 || value === '0') return false;
      throw new Error('Value must be true or false.');
    case 'date': {
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value + 'T00:00:00Z')))
        throw new Error('Date values must be in the format YYYY-MM-DD.');
      return value;
    }
    case 'select':
      if (typeof value !== 'string' || !cf.choices.includes(value)) throw new Error(`Invalid choice (${String(value)}). Available choices are: ${cf.choices.join(', ')}`);
      return value;
    case 'multi-select': {
      const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : null;
      if (!list) throw new Error('Value must be a list.');
      for (const v of list) {
        if (typeof v !== 'string' || !cf.choices.includes(v)) throw new Error(`Invalid choice (${String(v)}). Available choices are: ${cf.choices.join(', ')}`);
      }
      return list;
    }
    case 'json':
      if (nestedDeeperThan(value, MAX_STORED_JSON_DEPTH)) throw new Error(STORED_DEPTH_MESSAGE);
      if (cf.validationRegex && typeof value === 'string' && !new RegExp(cf.validationRegex).test(value)) throw new Error(`Value must match regex '${cf.validationRegex}'`);
      return value;
  }
}
