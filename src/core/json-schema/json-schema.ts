import { isIPv4, isIPv6 } from 'node:net';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { checkRegex } from '../resource/query/lookups';
import { pyRepr } from './py-repr';

/**
 * JSON Schema (draft 7) through Ajv, with the messages the reference's Python `jsonschema`
 * gives (`Draft7Validator` with its format checker, `best_match`): a client that reads the
 * reference's "'ntp' is a required property" reads the same here. Config contexts and cloud
 * resource types' `config_schema` validate with it.
 */

/** The formats the reference's checker knows without optional packages; other formats are not checked, as there. */
const FORMATS: Record<string, (s: string) => boolean> = {
  email: (s) => s.includes('@'),
  ipv4: (s) => isIPv4(s),
  ipv6: (s) => isIPv6(s),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
  regex: (s) => {
    try {
      new RegExp(s, 'u');
      return true;
    } catch {
      return false;
    }
  },
};

// Unknown formats are not checked and not logged, as the reference's checker ignores them.
const ajvOptions = { allErrors: true, verbose: true, strict: false, addUsedSchema: false, validateSchema: false, logger: false } as const;

function newAjv(): Ajv {
  const ajv = new Ajv(ajvOptions);
  for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: check });
  return ajv;
}

/** Checks schemas against the draft 7 meta-schema. */
const metaChecker = newAjv();

/** Validators by schema text; the oldest dropped past the bound (schemas are few, but edits make new texts). */
const compiled = new Map<string, { ajv: Ajv; validate: ValidateFunction }>();
const MAX_COMPILED = 200;

/** Why a schema cannot be used (the reference's SchemaError message), or undefined when it can. */
export function schemaError(given: unknown): string | undefined {
  if (given === null || (typeof given !== 'object' && typeof given !== 'boolean')) return `${pyRepr(given)} is not of type 'object', 'boolean'`;
  const schema = asDraft7(given);
  try {
    if (!metaChecker.validateSchema(schema as object)) return bestMessage(metaChecker.errors ?? [], schema);
  } catch (e) {
    return (e as Error).message;
  }
  for (const p of patterns(schema)) {
    if (!FORMATS.regex(p)) return `${pyRepr(p)} is not a 'regex'`;
    // Patterns run against stored data on every write: bounded as the API's regular expressions are.
    try {
      checkRegex(p);
    } catch (e) {
      return `${pyRepr(p)} is not a 'regex': ${(e as Error).message}`;
    }
  }
  try {
    validatorFor(schema);
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

/** The first violation of `data` against a usable schema (the reference's `e.message`), or undefined. */
export function dataError(schema: unknown, data: unknown): string | undefined {
  const validate = validatorFor(asDraft7(schema));
  if (validate(data)) return undefined;
  return bestMessage(validate.errors ?? [], data);
}

/**
 * The schema as the reference's Draft7Validator reads it: draft 7 whatever its `$schema` says
 * (Ajv would look the named draft up, and fail on one it does not hold).
 */
function asDraft7(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema) || !Object.hasOwn(schema, '$schema')) return schema;
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function validatorFor(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = compiled.get(key);
  if (hit) return hit.validate;
  // An instance per schema: two schemas may carry the same `$id`.
  const ajv = newAjv();
  const validate = ajv.compile(schema as object);
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, { ajv, validate });
  return validate;
}

/** Every `pattern` and `patternProperties` key of a schema. */
function patterns(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => patterns(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'pattern' && typeof v === 'string') out.push(v);
      if (k === 'patternProperties' && v && typeof v === 'object') out.push(...Object.keys(v));
      patterns(v, out);
    }
  }
  return out;
}

/** Keywords whose failure says least (the reference's `best_match` ranks them last). */
const WEAK = new Set(['anyOf', 'oneOf']);

/** An error with the errors of its branches (`anyOf`, `oneOf`), as the reference nests them. */
interface Node {
  e: ErrorObject;
  context: Node[];
}

const under = (path: string, parent: string) => path === parent || path.startsWith(`${parent}/`);

/**
 * Ajv lists the errors of a failed combinator's branches just before the combinator's own; the
 * reference keeps them inside it (`error.context`). An `if` is no error of its own there.
 */
function nest(errors: ErrorObject[]): Node[] {
  const out: Node[] = [];
  for (const e of errors) {
    if (e.keyword === 'if') continue;
    const node: Node = { e, context: [] };
    if (WEAK.has(e.keyword) && !(e.params as { passingSchemas?: unknown }).passingSchemas) {
      let i = out.length;
      while (i > 0 && under(out[i - 1].e.instancePath, e.instancePath)) i--;
      node.context = out.splice(i);
    }
    out.push(node);
  }
  return out;
}

const depth = (e: ErrorObject) => (e.instancePath ? e.instancePath.split('/').length - 1 : 0);
/** The reference's relevance, as a number to compare: nearer the root first, then the strong keywords, then the schema's order. */
const relevance = (n: Node): [number, number] => [depth(n.e), WEAK.has(n.e.keyword) ? 1 : 0];
const compare = (a: Node, b: Node) => {
  const [x, y] = [relevance(a), relevance(b)];
  return x[0] - y[0] || x[1] - y[1];
};

/**
 * The message of the error the reference's `best_match` picks: the most relevant one; inside a
 * combinator, its least relevant branch error unless the two least relevant tie.
 */
function bestMessage(errors: ErrorObject[], root: unknown): string {
  const nodes = nest(errors);
  let best = [...nodes].sort((a, b) => compare(a, b) || keywordOrder(a.e) - keywordOrder(b.e))[0];
  if (!best) return 'Validation failed.';
  while (best.context.length) {
    const [first, second] = [...best.context].sort((a, b) => compare(b, a));
    if (second && compare(first, second) === 0) break;
    best = first;
  }
  const e = best.e;
  if (e.keyword === 'additionalProperties') {
    // The reference names every unexpected property of the object in one message.
    const extras = errors.filter((x) => x.keyword === 'additionalProperties' && x.instancePath === e.instancePath && x.schemaPath === e.schemaPath).map((x) => String(x.params.additionalProperty));
    const sorted = [...new Set(extras)].sort();
    return `Additional properties are not allowed (${sorted.map(pyRepr).join(', ')} ${sorted.length === 1 ? 'was' : 'were'} unexpected)`;
  }
  return message(e, root);
}

/** Where the failing keyword stands among its schema's keys (the reference validates in that order). */
function keywordOrder(e: ErrorObject): number {
  const parent = e.parentSchema as Record<string, unknown> | undefined;
  if (!parent || typeof parent !== 'object') return 0;
  const i = Object.keys(parent).indexOf(e.keyword);
  return i < 0 ? 0 : i;
}

/** One error in the reference's words (jsonschema's keyword messages). */
function message(e: ErrorObject, _root: unknown): string {
  const x = pyRepr(e.data);
  const s = e.schema as unknown;
  const n = Number(s);
  switch (e.keyword) {
    case 'type': {
      const types = Array.isArray(s) ? s : [s];
      return `${x} is not of type ${types.map(pyRepr).join(', ')}`;
    }
    case 'required':
      return `${pyRepr(e.params.missingProperty)} is a required property`;
    case 'enum':
      return `${x} is not one of ${pyRepr(s)}`;
    case 'const':
      return `${pyRepr(s)} was expected`;
    case 'minimum':
      return `${x} is less than the minimum of ${pyRepr(s)}`;
    case 'maximum':
      return `${x} is greater than the maximum of ${pyRepr(s)}`;
    case 'exclusiveMinimum':
      return `${x} is less than or equal to the minimum of ${pyRepr(s)}`;
    case 'exclusiveMaximum':
      return `${x} is greater than or equal to the maximum of ${pyRepr(s)}`;
    case 'multipleOf':
      return `${x} is not a multiple of ${pyRepr(s)}`;
    case 'minLength':
    case 'minItems':
      return n === 1 ? `${x} should be non-empty` : `${x} is too short`;
    case 'maxLength':
    case 'maxItems':
      return n === 0 ? `${x} is expected to be empty` : `${x} is too long`;
    case 'minProperties':
      return n === 1 ? `${x} should be non-empty` : `${x} does not have enough properties`;
    case 'maxProperties':
      return n === 0 ? `${x} is expected to be empty` : `${x} has too many properties`;
    case 'uniqueItems':
      return `${x} has non-unique elements`;
    case 'pattern':
      return `${x} does not match ${pyRepr(s)}`;
    case 'format':
      return `${x} is not a ${pyRepr(s)}`;
    case 'dependencies':
      return `${pyRepr(e.params.missingProperty)} is a dependency of ${pyRepr(e.params.property)}`;
    case 'anyOf':
    case 'oneOf':
      return e.params && (e.params as { passingSchemas?: unknown }).passingSchemas ? `${x} is valid under each of ${pyRepr(s)}` : `${x} is not valid under any of the given schemas`;
    case 'not':
      return `${x} should not be valid under ${pyRepr(s)}`;
    case 'contains':
      return `None of ${x} are valid under the given schema`;
    case 'false schema':
      return `False schema does not allow ${x}`;
    default:
      return `${x} is not valid under the given schema (${e.keyword})`;
  }
}
