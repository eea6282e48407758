import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { checkRegex } from '../../core/resource/query/lookups';

/**
 * Ajv's regular expressions (`pattern`, `patternProperties`), bounded as every client's regular
 * expression is (length, no nested quantifiers or back-references): a schema is client input.
 */
const boundedRegExp = Object.assign((pattern: string, flags: string) => new RegExp(checkRegex(pattern), flags), { code: 'new RegExp' });

/** Python's repr() of a JSON value, as the reference's jsonschema messages print them. */
export function pythonRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
    const body = v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (Array.isArray(v)) return `[${v.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pythonRepr(k)}: ${pythonRepr(x)}`)
    .join(', ')}}`;
}

/** The instance a failed keyword looked at, found by the error's JSON pointer. */
function at(root: unknown, pointer: string): unknown {
  let v = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  }
  return v;
}

const lengthMessage = (limit: number, low: boolean) => (low ? (limit === 1 ? 'should be non-empty' : 'is too short') : limit === 0 ? 'is expected to be empty' : 'is too long');

/** jsonschema's (4.x) message for the first error, from Ajv's description of it. */
function message(e: ErrorObject, root: unknown): string {
  const v = at(root, e.instancePath);
  const r = pythonRepr(v);
  const p = e.params as Record<string, any>;
  switch (e.keyword) {
    case 'type':
      return `${r} is not of type ${String(p.type).split(',').map(pythonRepr).join(', ')}`;
    case 'required':
      return `${pythonRepr(p.missingProperty)} is a required property`;
    case 'additionalProperties':
      return `Additional properties are not allowed (${pythonRepr(p.additionalProperty)} was unexpected)`;
    case 'enum':
      return `${r} is not one of ${pythonRepr(p.allowedValues)}`;
    case 'const':
      return `${pythonRepr(p.allowedValue)} was expected`;
    case 'minimum':
      return `${r} is less than the minimum of ${p.limit}`;
    case 'maximum':
      return `${r} is greater than the maximum of ${p.limit}`;
    case 'exclusiveMinimum':
      return `${r} is less than or equal to the minimum of ${p.limit}`;
    case 'exclusiveMaximum':
      return `${r} is greater than or equal to the maximum of ${p.limit}`;
    case 'multipleOf':
      return `${r} is not a multiple of ${p.multipleOf}`;
    case 'minLength':
    case 'minItems':
      return `${r} ${lengthMessage(p.limit, true)}`;
    case 'maxLength':
    case 'maxItems':
      return `${r} ${lengthMessage(p.limit, false)}`;
    case 'minProperties':
      return `${r} ${p.limit === 1 ? 'should be non-empty' : 'does not have enough properties'}`;
    case 'maxProperties':
      return `${r} ${p.limit === 0 ? 'is expected to be empty' : 'has too many properties'}`;
    case 'pattern':
      return `${r} does not match ${pythonRepr(p.pattern)}`;
    case 'uniqueItems':
      return `${r} has non-unique elements`;
    case 'anyOf':
      return `${r} is not valid under any of the given schemas`;
    case 'oneOf':
      return `${r} is not valid under any of the given schemas`;
    case 'not':
      return `${r} should not be valid under ${pythonRepr((e.schema as unknown) ?? {})}`;
    default:
      return `${r} ${e.message ?? 'is not valid'}`;
  }
}

/**
 * Draft 7 validation of a value against a JSON schema (the reference's Draft7Validator: the
 * first error's message, worded as Python's jsonschema words it). Formats are not checked. A
 * schema that does not compile is reported as such. Compiled schemas are kept by their text.
 */
export class ConfigSchemas {
  private ajv = ConfigSchemas.validator();
  private readonly compiled = new Map<string, ValidateFunction | string>();

  /** An Ajv instance that keeps no schema by its `$id` (two types may share one). */
  private static validator(): Ajv {
    return new Ajv({ strict: false, validateFormats: false, allErrors: false, addUsedSchema: false, code: { regExp: boundedRegExp } });
  }

  private compile(schema: unknown): ValidateFunction | string {
    const key = JSON.stringify(schema);
    let fn = this.compiled.get(key);
    if (!fn) {
      try {
        fn = this.ajv.compile(schema as object);
      } catch (e) {
        fn = `Invalid config_schema: ${(e as Error).message}`;
      }
      if (this.compiled.size >= 1000) {
        // Ajv keeps what it compiled too: start both afresh.
        this.compiled.clear();
        this.ajv = ConfigSchemas.validator();
      }
      this.compiled.set(key, fn);
    }
    return fn;
  }

  /** The error message, or undefined when the value is valid. */
  check(schema: unknown, value: unknown): string | undefined {
    // The reference validates only where the schema is truthy in Python's sense: a non-empty object.
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || !Object.keys(schema).length) return undefined;
    const fn = this.compile(schema);
    if (typeof fn === 'string') return fn;
    if (fn(value ?? null)) return undefined;
    const first = fn.errors?.[0];
    return first ? message(first, value ?? null) : 'Invalid value';
  }
}

export const configSchemas = new ConfigSchemas();
