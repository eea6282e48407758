import type { RequestContext } from '../context';
import { offers, type ResourceDefinition } from './definition';
import { fieldInVersion, fieldRequired, type Field } from './fields';
import { writable } from './serialize/input';
import { scopeConstraints } from './query/scope';

type Info = Record<string, unknown>;

/** A verbose name as a title: `ip addresses` -> `IP Addresses`. */
export function titleCase(s: string): string {
  return s.replace(/\b\w/g, (c) => c.toUpperCase()).replace(/\bIp\b/g, 'IP').replace(/\bVrf/g, 'VRF').replace(/\bVlan/g, 'VLAN');
}

function fieldInfo(ctx: RequestContext, f: Field): Info | null {
  const info: Info = {};
  const readOnly = !writable(f);
  const lbl = f.label ?? f.name.replace(/_/g, ' ');
  switch (f.kind) {
    case 'scalar':
      if (f.listOf) {
        const { type, choices } = f.listOf;
        info.type = 'list';
        info.child = choices ? { type: 'choice', required: false, read_only: false, choices: choices.map(([value, display]) => ({ value, display })) } : { type, required: false, read_only: false };
      } else if (f.choices) {
        info.type = 'choice';
        info.choices = f.choices.map(([value, display]) => ({ value, display }));
      } else info.type = { string: 'string', text: 'string', integer: 'integer', decimal: 'decimal', boolean: 'boolean', date: 'date', datetime: 'datetime', json: 'json', uuid: 'string' }[f.type];
      if (f.maxLength) info.max_length = f.maxLength;
      if (f.minValue !== undefined) info.min_value = f.minValue;
      if (f.maxValue !== undefined) info.max_value = f.maxValue;
      if (f.type === 'decimal') {
        info.max_digits = f.maxDigits;
        info.decimal_places = f.decimalPlaces;
      }
      break;
    case 'fk':
    case 'gfk':
      info.type = 'field';
      break;
    case 'm2m':
      if (f.single) info.type = 'field';
      else {
        info.type = 'list';
        info.child = { type: 'field' };
      }
      break;
    case 'contentTypes':
      info.type = 'list';
      info.choices = ctx.registry.contentTypes(f.allowed).map((ct) => ({ value: ct, display: ct.replace('.', ' | ') }));
      break;
    case 'count':
      info.type = 'integer';
      break;
    case 'computed':
    case 'composite':
      info.type = (f.schema.type as string) ?? 'field';
      break;
  }
  info.required = fieldRequired(f, ctx.apiVersion) && !readOnly;
  info.read_only = readOnly;
  info.label = titleCase(lbl);
  if (f.help) info.help_text = f.help;
  return info;
}

/** The OPTIONS body: name, description, renders, parses and, when allowed, actions.POST/PUT. */
export async function optionsMetadata(ctx: RequestContext, def: ResourceDefinition, detail: boolean): Promise<Info> {
  const body: Info = {
    name: titleCase(detail ? def.verboseName : def.verboseNamePlural),
    description: def.description ?? '',
    renders: ['application/json', 'text/html', 'text/csv'],
    parses: ['application/json', 'text/csv'],
  };
  // The list describes its create (POST), the detail its update (PUT): only where the API offers them.
  if (!offers(def, detail ? 'update' : 'create')) return body;
  const action = detail ? 'change' : 'add';
  const allowed = await scopeConstraints(ctx, def, action);
  if (allowed !== null && !allowed.length) return body;
  const fields: Info = {
    id: { type: 'string', required: false, read_only: detail, label: 'ID' },
    object_type: { type: 'field', required: false, read_only: true, label: 'Object type' },
    display: { type: 'string', required: false, read_only: true, label: 'Display' },
    url: { type: 'field', required: false, read_only: true, label: 'Url' },
    natural_slug: { type: 'string', required: false, read_only: true, label: 'Natural slug' },
  };
  for (const f of Object.values(def.fields)) {
    if (!fieldInVersion(f, ctx.apiVersion)) continue;
    const info = fieldInfo(ctx, f);
    if (!info) continue;
    if (f.kind === 'gfk') {
      // Written as `<name>_type` (one of the content types it may point to) and `<name>_id`; the object itself is read-only.
      const writes = !info.read_only;
      fields[f.typeKey!] = {
        type: writes ? 'choice' : 'string',
        required: info.required,
        read_only: !writes,
        label: `${info.label} type`,
        ...(writes ? { choices: ctx.registry.contentTypes(f.allowed ?? (() => true)).map((ct) => ({ value: ct, display: ct.replace('.', ' | ') })) } : {}),
      };
      if (f.showId !== false) fields[f.idKey!] = { type: 'string', required: info.required, read_only: !writes, label: `${info.label} id` };
      fields[f.name] = { ...info, required: false, read_only: true };
    } else fields[f.name] = info;
  }
  fields.created = { type: 'datetime', required: false, read_only: true, label: 'Created' };
  fields.last_updated = { type: 'datetime', required: false, read_only: true, label: 'Last updated' };
  for (const e of ctx.registry.extensionsOf(def)) {
    // An opt-in block is listed where it may be written (relationships), not where it is only shown.
    for (const [key, k] of Object.entries(e.represent?.keys ?? {})) if (!e.represent?.include || k.writable) fields[key] = { type: k.type, required: false, read_only: !k.writable, label: k.label };
  }
  return { ...body, actions: { [detail ? 'PUT' : 'POST']: fields } };
}
