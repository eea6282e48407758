import { pyRepr } from '../../../core/json-schema/py-repr';

/** A value as Python's str() prints it (the reference's messages interpolate them so). */
export const pyStr = (v: unknown) => (typeof v === 'string' ? v : pyRepr(v));

const TRUTHY = ['y', 'yes', 't', 'true', 'on', '1'];
const FALSY = ['n', 'no', 'f', 'false', 'off', '0'];
const DATETIME_FORMATS = ['YYYY-MM-DDTHH:MM:SS', 'YYYY-MM-DDTHH:MM:SS(+,-)zzzz', 'YYYY-MM-DDTHH:MM:SS(+,-)zz:zz'];
const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const DATETIME = /^(\d{4})-(\d{1,2})-(\d{1,2})T(\d{1,2}):(\d{1,2}):(\d{1,2})(Z|[+-]\d{2}:?\d{2}(?::?\d{2})?)?$/;

const validDate = (y: number, m: number, d: number) => m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();

/** Python's int(): whole numbers and their text; a float is truncated. */
function pyInt(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : undefined;
  if (typeof v === 'string' && /^\s*[+-]?\d+(_\d+)*\s*$/.test(v)) return Number(v.replace(/_/g, ''));
  return undefined;
}

/** Python's float(): numbers and their text. */
function pyFloat(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(v)) return Number(v);
  return undefined;
}

export type Checked = { value: unknown } | { error: string };

/**
 * The reference's ObjectMetadata.clean() for a value of a data type other than contact-or-team:
 * the value as it is stored (an integer's text as the integer, a datetime without a zone in
 * UTC), or the reference's message. `choices`: the type's choice values, in their order.
 */
export function checkValue(dataType: string, value: unknown, choices: string[]): Checked {
  if (value === null || value === undefined) return { error: `value is a required field that cannot be empty for metadata type ${dataType}.` };
  switch (dataType) {
    case 'text':
    case 'url':
    case 'markdown':
      return typeof value === 'string' ? { value } : { error: 'Value must be a string' };
    case 'integer': {
      const n = pyInt(value);
      return n === undefined ? { error: 'Value must be an integer.' } : { value: n };
    }
    case 'float': {
      const n = pyFloat(value);
      return n === undefined ? { error: 'Value must be a float.' } : { value: n };
    }
    case 'boolean': {
      if (typeof value === 'boolean') return { value };
      const s = pyStr(value).toLowerCase();
      return TRUTHY.includes(s) ? { value: true } : FALSY.includes(s) ? { value: false } : { error: 'Value must be true or false.' };
    }
    case 'date': {
      if (typeof value !== 'string') return { error: 'Value must be a date or str object.' };
      const m = DATE.exec(value);
      return m && validDate(+m[1], +m[2], +m[3]) ? { value } : { error: 'Date values must be in the format YYYY-MM-DD.' };
    }
    case 'datetime': {
      if (typeof value !== 'string') return { error: 'Value must be a datetime or str object.' };
      const m = DATETIME.exec(value);
      if (!m || !validDate(+m[1], +m[2], +m[3]) || +m[4] > 23 || +m[5] > 59 || +m[6] > 59) return { error: `Datetime values must be in the following formats ${pyRepr(DATETIME_FORMATS)}` };
      // Without a time zone it is taken as UTC.
      return { value: m[7] ? value : `${value}+0000` };
    }
    case 'select':
      return typeof value === 'string' && choices.includes(value) ? { value } : { error: `Invalid choice (${pyStr(value)}). Available choices are: ${choices.join(', ')}` };
    case 'multi-select': {
      const list = typeof value === 'string' ? value.split(',') : value;
      if (!Array.isArray(list) || !list.every((x) => typeof x === 'string' && choices.includes(x))) {
        return { error: `Invalid choice(s) (${pyStr(list)}). Available choices are: ${choices.join(', ')}` };
      }
      return { value: list };
    }
    default:
      // JSON: anything.
      return { value };
  }
}

/** A list of field names (the reference's JSONArrayField of CharField). */
export function scopedFieldsError(v: unknown): string | undefined {
  if (!Array.isArray(v)) return `Expected a list of items but got type "${v === null ? 'NoneType' : typeof v === 'string' ? 'str' : typeof v === 'number' ? 'int' : typeof v === 'boolean' ? 'bool' : 'dict'}".`;
  if (v.some((x) => typeof x !== 'string')) return 'Not a valid string.';
  if (v.some((x) => x.length > 255)) return 'Ensure this field has no more than 255 characters.';
  return undefined;
}
