import { isIP } from 'node:net';
import type { RequestContext } from '../../../core/context';
import { visibleRows } from '../../../core/resource/query/scope';
import { ident, inList, sql } from '../../../database/sql';
import { sizeError, toUpload } from '../attachments/file-storage';

/** What every job variable may say (the reference's ScriptVariable). */
interface VarBase {
  label?: string;
  description?: string;
  default?: unknown;
  /** Default true (a boolean is never required). */
  required?: boolean;
}

/**
 * A job's input, declared once: validated on run (the reference's messages), described by
 * `GET jobs/<id>/variables/` under the reference's type names.
 */
export type JobVariable = VarBase &
  (
    | { type: 'StringVar' | 'TextVar'; min_length?: number; max_length?: number; regex?: string }
    | { type: 'IntegerVar'; min_value?: number; max_value?: number }
    | { type: 'BooleanVar' }
    | { type: 'ChoiceVar' | 'MultiChoiceVar'; choices: readonly (readonly [string, string])[] }
    | { type: 'ObjectVar' | 'MultiObjectVar'; model: string }
    | { type: 'JSONVar' }
    | { type: 'IPAddressVar' | 'IPAddressWithMaskVar' | 'IPNetworkVar' }
    | { type: 'FileVar' }
  );

type StringOpts = VarBase & { min_length?: number; max_length?: number; regex?: string };
type IntegerOpts = VarBase & { min_value?: number; max_value?: number };

/** Declaring variables: `vars.string({ max_length: 20 })`, `vars.object('ipam.prefix')`, ... */
export const vars = {
  string: (o: StringOpts = {}): JobVariable => ({ type: 'StringVar', ...o }),
  text: (o: StringOpts = {}): JobVariable => ({ type: 'TextVar', ...o }),
  integer: (o: IntegerOpts = {}): JobVariable => ({ type: 'IntegerVar', ...o }),
  boolean: (o: VarBase = {}): JobVariable => ({ type: 'BooleanVar', ...o, required: false }),
  choice: (choices: readonly (readonly [string, string])[], o: VarBase = {}): JobVariable => ({ type: 'ChoiceVar', choices, ...o }),
  multiChoice: (choices: readonly (readonly [string, string])[], o: VarBase = {}): JobVariable => ({ type: 'MultiChoiceVar', choices, ...o }),
  object: (model: string, o: VarBase = {}): JobVariable => ({ type: 'ObjectVar', model, ...o }),
  multiObject: (model: string, o: VarBase = {}): JobVariable => ({ type: 'MultiObjectVar', model, ...o }),
  json: (o: VarBase = {}): JobVariable => ({ type: 'JSONVar', ...o }),
  ipAddress: (o: VarBase = {}): JobVariable => ({ type: 'IPAddressVar', ...o }),
  ipAddressWithMask: (o: VarBase = {}): JobVariable => ({ type: 'IPAddressWithMaskVar', ...o }),
  ipNetwork: (o: VarBase = {}): JobVariable => ({ type: 'IPNetworkVar', ...o }),
  /** A file: a multipart part of the run request (or a `data:` URI in JSON); the job gets a JobFile (attachments/job-files.ts). */
  file: (o: VarBase = {}): JobVariable => ({ type: 'FileVar', ...o }),
};

/** `GET jobs/<id>/variables/`: one entry per variable, keys as the reference gives them. */
export function describeVariables(variables: Record<string, JobVariable>): Record<string, unknown>[] {
  return Object.entries(variables).map(([name, v]) => {
    const entry: Record<string, unknown> = { name, type: v.type };
    if (v.label) entry.label = v.label;
    if (v.description) entry.help_text = v.description;
    entry.required = v.type === 'BooleanVar' ? false : v.required ?? true;
    for (const k of ['min_length', 'max_length', 'min_value', 'max_value'] as const) if ((v as unknown as Record<string, unknown>)[k] !== undefined) entry[k] = (v as unknown as Record<string, unknown>)[k];
    if ('choices' in v) entry.choices = v.choices.map(([value, label]) => [value, label]);
    if (v.default !== undefined) entry.default = v.default;
    if ('model' in v) entry.model = v.model;
    return entry;
  });
}

/** Job data that does not validate: answered as 400 `{"errors": ...}` (the reference's form errors). */
export class JobDataError extends Error {
  constructor(readonly errors: Record<string, string[]> | string[]) {
    super('invalid job data');
  }
}

const empty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length);
const invalidChoice = (v: unknown) => `Select a valid choice. ${String(v)} is not one of the available choices.`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function ipCheck(type: string, raw: unknown): string | undefined {
  const text = String(raw).trim();
  const [addr, mask, ...rest] = text.split('/');
  if (rest.length || !isIP(addr)) return type === 'IPAddressVar' && mask === undefined ? `Invalid IPv4/IPv6 address format: ${text}` : 'Please specify a valid IPv4 or IPv6 address.';
  if (type === 'IPAddressVar') return mask === undefined ? undefined : 'This field requires an IP address without a mask.';
  if (mask === undefined) return 'CIDR mask (e.g. /24) is required.';
  const max = isIP(addr) === 4 ? 32 : 128;
  if (!/^\d+$/.test(mask) || Number(mask) > max) return 'Please specify a valid IPv4 or IPv6 address.';
}

/** The object ids that name no object the requester may view. */
async function unknownIds(ctx: RequestContext, modelType: string, ids: string[]): Promise<Set<string>> {
  const def = ctx.registry.get(modelType);
  const wellFormed = ids.filter((i) => UUID.test(i));
  const found = new Set<string>();
  if (def && wellFormed.length) {
    const rows = await visibleRows(ctx, ctx.db, def, 'o');
    for (const r of await ctx.db.query<{ id: string }>(sql`SELECT o.${ident('id')} ${rows.from(inList(sql`o.${ident('id')}`, wellFormed))}`)) found.add(String(r.id).toLowerCase());
  }
  return new Set(ids.filter((i) => !found.has(i.toLowerCase())));
}

const idOf = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? String((v as Record<string, unknown>).id ?? '') : String(v));

/**
 * Checks a run's `data` against a job's variables as the reference's job form does, with the
 * requester's view for object variables; returns the data to store (defaults filled in, objects
 * as ids, numbers as numbers) or throws JobDataError.
 */
export async function validateJobData(ctx: RequestContext, variables: Record<string, JobVariable>, data: unknown): Promise<Record<string, unknown>> {
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new JobDataError(['Job data needs to be a dict']);
  const input = data as Record<string, unknown>;
  for (const k of Object.keys(input)) if (!Object.hasOwn(variables, k)) throw new JobDataError({ [k]: ['Job data contained an unknown property'] });
  const errors: Record<string, string[]> = {};
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(variables)) {
    let value = Object.hasOwn(input, name) ? input[name] : v.default;
    const fail = (msg: string) => void (errors[name] = [msg]);
    if (v.type === 'BooleanVar') {
      out[name] = typeof value === 'string' ? !['false', '0', ''].includes(value.toLowerCase()) : !!value;
      continue;
    }
    if (empty(value)) {
      if (v.required ?? true) fail('This field is required.');
      else out[name] = v.type === 'MultiChoiceVar' || v.type === 'MultiObjectVar' ? [] : null;
      continue;
    }
    switch (v.type) {
      case 'StringVar':
      case 'TextVar': {
        if (typeof value === 'object') {
          fail('Enter a valid value.');
          break;
        }
        const s = String(value);
        if (v.min_length !== undefined && s.length < v.min_length) fail(`Ensure this value has at least ${v.min_length} characters (it has ${s.length}).`);
        else if (v.max_length !== undefined && s.length > v.max_length) fail(`Ensure this value has at most ${v.max_length} characters (it has ${s.length}).`);
        else if (v.regex && !new RegExp(v.regex).test(s)) fail(`Invalid value. Must match regex: ${v.regex}`);
        else out[name] = s;
        break;
      }
      case 'IntegerVar': {
        const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : NaN;
        if (!Number.isInteger(n)) fail('Enter a whole number.');
        else if (v.min_value !== undefined && n < v.min_value) fail(`Ensure this value is greater than or equal to ${v.min_value}.`);
        else if (v.max_value !== undefined && n > v.max_value) fail(`Ensure this value is less than or equal to ${v.max_value}.`);
        else out[name] = n;
        break;
      }
      case 'ChoiceVar':
        if (typeof value === 'object' || !v.choices.some(([c]) => c === String(value))) fail(invalidChoice(value));
        else out[name] = String(value);
        break;
      case 'MultiChoiceVar': {
        if (!Array.isArray(value)) {
          fail('Enter a list of values.');
          break;
        }
        const bad = value.find((x) => typeof x === 'object' || !v.choices.some(([c]) => c === String(x)));
        if (bad !== undefined) fail(invalidChoice(bad));
        else out[name] = value.map(String);
        break;
      }
      case 'ObjectVar': {
        const id = idOf(value);
        if ((await unknownIds(ctx, v.model, [id])).size) fail('Select a valid choice. That choice is not one of the available choices.');
        else out[name] = id;
        break;
      }
      case 'MultiObjectVar': {
        if (!Array.isArray(value)) {
          fail('Enter a list of values.');
          break;
        }
        const ids = value.map(idOf);
        const missing = await unknownIds(ctx, v.model, ids);
        if (missing.size) fail(invalidChoice([...missing][0]));
        else out[name] = ids;
        break;
      }
      case 'FileVar': {
        const file = toUpload(value, name);
        const tooBig = typeof file === 'string' ? file : sizeError(file, ctx.settings.FILE_UPLOAD_MAX_SIZE);
        if (tooBig) fail(tooBig);
        else out[name] = file;
        break;
      }
      case 'JSONVar':
        if (typeof value === 'string') {
          try {
            value = JSON.parse(value);
          } catch {
            fail('Enter a valid JSON.');
            break;
          }
        }
        out[name] = value;
        break;
      default: {
        const msg = typeof value === 'string' ? ipCheck(v.type, value) : 'Please specify a valid IPv4 or IPv6 address.';
        if (msg) fail(msg);
        else out[name] = String(value).trim();
      }
    }
  }
  if (Object.keys(errors).length) throw new JobDataError(errors);
  return out;
}
