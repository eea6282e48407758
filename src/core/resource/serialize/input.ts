import { MAX_STORED_JSON_DEPTH, nestedDeeperThan, STORED_DEPTH_MESSAGE } from '../json-limits';
import type { ResourceDefinition } from '../definition';
import type { FieldErrors } from '../errors';
import type { CompositeField, Field, ScalarField } from '../fields';
import { parseBoolean, parseDate, parseDateTime, parseDecimal, parseInteger, parseUuid, ValueError } from '../query/values';

export const REQUIRED = 'This field is required.';
export const NOT_NULL = 'This field may not be null.';

/** Accepts a choice as its plain value or as the {value, label} object the API reads back. */
export function unwrapChoice(v: unknown): unknown {
  if (Array.isArray(v)) throw new ValueError('Value must be passed directly (e.g. "foo": 123); do not use a list.');
  if (v && typeof v === 'object') {
    if (!('value' in (v as object)))
      throw new ValueError('Value must be passed directly (e.g. "foo": 123) or as a dict with key "value" (e.g. "foo": {"value": 123}).');
    return (v as { value: unknown }).value;
  }
  return v;
}

/** Parses and validates one scalar input value; throws ValueError with the client message. */
export function parseScalarInput(f: ScalarField, input: unknown): unknown {
  if (input === null) {
    if (f.nullable) return null;
    // The reference's ChoiceField takes null for blank (what it shows a blank choice as).
    if (!f.choices) throw new ValueError(NOT_NULL);
    input = '';
  }
  let v: unknown;
  if (f.choices) {
    const raw = unwrapChoice(input);
    const c = f.choices.find(([value]) => String(value) === String(raw));
    if (!c) {
      if (raw === '' && !f.required && f.type === 'string') return '';
      if (raw === '') throw new ValueError('This field may not be blank.');
      throw new ValueError(`${String(raw)} is not a valid choice.`);
    }
    return c[0];
  }
  switch (f.type) {
    case 'string':
    case 'text': {
      if (typeof input === 'object' || typeof input === 'boolean') throw new ValueError('Not a valid string.');
      let s = String(input);
      if (f.type === 'string') s = s.trim();
      if (s === '' && (f.blank === false || (f.blank === undefined && f.required))) throw new ValueError('This field may not be blank.');
      if (f.maxLength && s.length > f.maxLength) throw new ValueError(`Ensure this field has no more than ${f.maxLength} characters.`);
      v = s;
      break;
    }
    case 'integer': {
      if (typeof input === 'boolean') throw new ValueError('A valid integer is required.');
      const n = parseInteger(input);
      if (f.minValue !== undefined && n < f.minValue) throw new ValueError(`Ensure this value is greater than or equal to ${f.minValue}.`);
      if (f.maxValue !== undefined && n > f.maxValue) throw new ValueError(`Ensure this value is less than or equal to ${f.maxValue}.`);
      v = n;
      break;
    }
    case 'decimal': {
      if (input === '' && f.nullable) return null;
      if (typeof input === 'boolean') throw new ValueError('A valid number is required.');
      const s = parseDecimal(input);
      const { int, frac } = decimalDigits(s);
      const intDigits = int.replace(/^0+/, '').length;
      if (f.decimalPlaces !== undefined && frac.length > f.decimalPlaces) throw new ValueError(`Ensure that there are no more than ${f.decimalPlaces} decimal places.`);
      if (f.maxDigits !== undefined && intDigits + frac.length > f.maxDigits) throw new ValueError(`Ensure that there are no more than ${f.maxDigits} digits in total.`);
      if (f.maxDigits !== undefined && f.decimalPlaces !== undefined && intDigits > f.maxDigits - f.decimalPlaces)
        throw new ValueError(`Ensure that there are no more than ${f.maxDigits - f.decimalPlaces} digits before the decimal point.`);
      const n = Number(s);
      if (f.minValue !== undefined && n < f.minValue) throw new ValueError(`Ensure this value is greater than or equal to ${f.minValue}.`);
      if (f.maxValue !== undefined && n > f.maxValue) throw new ValueError(`Ensure this value is less than or equal to ${f.maxValue}.`);
      v = `${s.trim().startsWith('-') && (int !== '0' || /[1-9]/.test(frac)) ? '-' : ''}${int.replace(/^0+(?=\d)/, '') || '0'}${frac ? '.' + frac : ''}`;
      break;
    }
    case 'boolean':
      v = parseBoolean(input);
      break;
    case 'date':
      if (input === '' && f.nullable) return null;
      v = parseDate(input);
      break;
    case 'datetime':
      if (input === '' && f.nullable) return null;
      v = parseDateTime(input);
      break;
    case 'uuid':
      v = parseUuid(input);
      break;
    case 'json':
      if (nestedDeeperThan(input, MAX_STORED_JSON_DEPTH)) throw new ValueError(STORED_DEPTH_MESSAGE);
      v = input;
      break;
  }
  if (f.normalize) v = f.normalize(v);
  const msg = f.validate?.(v);
  if (msg) throw new ValueError(msg);
  return v;
}

export function parseCompositeInput(f: CompositeField, input: unknown): Record<string, unknown> {
  if (input === null) {
    if (f.nullable) return Object.fromEntries(f.columns.map((c) => [c, null]));
    throw new ValueError(NOT_NULL);
  }
  const r = f.parse(input);
  if (typeof r === 'string') throw new ValueError(r);
  return r;
}

/** Value stored for a column the request did not set, on create. */
export function defaultFor(f: ScalarField): unknown {
  if (f.default !== undefined) return typeof f.default === 'function' ? (f.default as () => unknown)() : f.default;
  if (f.nullable) return null;
  if (f.type === 'string' || f.type === 'text') return '';
  if (f.type === 'boolean') return false;
  if (f.type === 'json') return null;
  return null;
}

export const writable = (f: Field) =>
  !f.readOnly && (f.kind === 'scalar' || f.kind === 'fk' || f.kind === 'composite' || f.kind === 'gfk' || ((f.kind === 'm2m' || f.kind === 'contentTypes') && (f.kind === 'contentTypes' || f.writable)));

export function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

export function label(def: ResourceDefinition, name: string): string {
  const f = def.fields[name];
  const l = f?.label ?? name.replace(/_/g, ' ');
  return l.charAt(0).toUpperCase() + l.slice(1);
}

/** Integer and fraction digits of a decimal string (exponents expanded; trailing fraction zeros dropped). */
export function decimalDigits(s: string): { int: string; frac: string } {
  const m = /^[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(s.trim());
  if (!m) return { int: '0', frac: '' };
  let digits = (m[1] || '') + (m[2] || '');
  let point = (m[1] || '').length + Number(m[3] || 0);
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  return { int: digits.slice(0, point) || '0', frac: digits.slice(point).replace(/0+$/, '') };
}
