import type { Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import { model, type ResourceDefinition, type WriteContext, type WriteState } from '../../../core/resource/definition';
import type { RequestContext } from '../../../core/context';
import type { FieldErrors } from '../../../core/resource/errors';
import { unscoped } from '../../../core/resource/query/rows';
import { contentTypeDisplay } from '../content-types/content-types';
import { contactOrTeamErrors } from './contact-or-team';
import { contactResource, teamResource } from './contact.resource';
import { metadataChoiceResource } from './metadata-type.resource';
import { checkValue, pyStr } from './metadata-value';

const TYPE_LINKS = 'extras_metadatatype_content_types';
const objectMetadata = model('extras.objectmetadata');
const NO_HELPERS = { related: () => null, ancestors: [] };

/** Python's repr of a set of strings (in a stable order: Python's is the hashes'). */
const pySet = (items: string[]) => `{${[...items].sort().map((s) => pyStr([s]).slice(1, -1)).join(', ')}}`;
const keyOf = (v: Row) => `${v.metadata_type_id}|${v.assigned_object_type}|${v.assigned_object_id}`;

/**
 * The reference's ObjectMetadata.clean(), for a batch: the type is fixed once created and must
 * be enabled for the object's model; a contact-or-team type takes exactly one of them and no
 * value, any other type a value of its data type (stored as the type reads it: an integer's
 * text as the integer); and the scoped fields of metadata of one type on one object may not
 * overlap (an empty list scopes every field). One statement per lookup for the whole batch.
 */
export async function validateObjectMetadata(states: WriteState[], w: WriteContext): Promise<(FieldErrors | void)[]> {
  const { exec, ctx } = w;
  const typeIds = [...new Set(states.map((s) => String(s.values.metadata_type_id)))];
  const links = await exec.query<{ t: string; ct: string }>(
    sql`SELECT ${ident('metadatatype_id')} AS ${ident('t')}, ${ident('content_type')} AS ${ident('ct')} FROM ${ident(TYPE_LINKS)} WHERE ${inList(ident('metadatatype_id'), typeIds)}`,
  );
  const enabled = new Set(links.map((r) => `${r.t}|${r.ct}`));
  const choices = new Map<string, string[]>();
  if (states.some((s) => ['select', 'multi-select'].includes(String(s.related('metadata_type')?.data_type)))) {
    const rows = await exec.query<{ t: string; value: string }>(
      sql`SELECT ${ident('metadata_type_id')} AS ${ident('t')}, ${ident('value')} ${unscoped(metadataChoiceResource).from(inList(ident('metadata_type_id'), typeIds))} ORDER BY ${ident('weight')}, ${ident('value')}`,
    );
    for (const r of rows) choices.set(String(r.t), [...(choices.get(String(r.t)) ?? []), String(r.value)]);
  }
  // Metadata of the same types on the same objects, stored or earlier in this batch.
  const objectIds = [...new Set(states.map((s) => String(s.values.assigned_object_id)))];
  const stored = await exec.query<Row>(
    sql`SELECT ${ident('id')}, ${ident('metadata_type_id')}, ${ident('assigned_object_type')}, ${ident('assigned_object_id')}, ${ident('scoped_fields')} ${unscoped(objectMetadata()).from(inList(ident('metadata_type_id'), typeIds), inList(ident('assigned_object_id'), objectIds))}`,
  );
  const seen = new Map<string, Row[]>();
  for (const r of stored) seen.set(keyOf(r), [...(seen.get(keyOf(r)) ?? []), r]);

  const out: (FieldErrors | void)[] = [];
  for (const s of states) {
    const type = s.related('metadata_type');
    const errors = type ? checkOne(s, type, enabled, choices.get(String(type.id)) ?? [], ctx) : undefined;
    if (errors || !type) {
      out.push(errors);
      continue;
    }
    const key = keyOf(s.values);
    const overlap = await overlapError(s, type, (seen.get(key) ?? []).filter((r) => String(r.id) !== String(s.values.id)), w);
    out.push(overlap);
    if (!overlap) seen.set(key, [...(seen.get(key) ?? []).filter((r) => String(r.id) !== String(s.values.id)), s.values]);
  }
  return out;
}

function checkOne(s: WriteState, type: Row, enabled: Set<string>, choices: string[], ctx: RequestContext): FieldErrors | undefined {
  if (s.existing && String(s.existing.metadata_type_id) !== String(s.values.metadata_type_id)) return { metadata_type: ['Cannot be changed once created'] };
  const ct = String(s.values.assigned_object_type);
  if (!enabled.has(`${type.id}|${ct}`)) {
    const [app_label, modelName] = ct.split('.');
    return { non_field_errors: [`Assigned Object Type ${contentTypeDisplay(ctx, { id: 0, app_label, model: modelName })} is not allowed by Metadata Type ${type.name}`] };
  }
  const dataType = String(type.data_type);
  const value = s.values._value;
  if (dataType === 'contact-or-team') {
    if (value !== null && value !== undefined) {
      // A value given for such metadata is refused as it is set, before the other checks.
      return { non_field_errors: [s.touched.has('value') ? `${pyStr(value)} is an invalid value for metadata type data type ${dataType}` : `A value cannot be specified for type ${dataType}`] };
    }
    return contactOrTeamErrors(s.values);
  }
  const checked = checkValue(dataType, value, choices);
  if ('error' in checked) return { non_field_errors: [checked.error] };
  s.values._value = checked.value;
  return undefined;
}

const listOf = (v: unknown): string[] => {
  const parsed = typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
  return Array.isArray(parsed) ? parsed.map(String) : [];
};

/** The reference's overlap rule for the scoped fields of metadata of one type on one object, with its messages. */
async function overlapError(s: WriteState, type: Row, others: Row[], w: WriteContext): Promise<FieldErrors | undefined> {
  if (!others.length) return undefined;
  const mine = listOf(s.values.scoped_fields);
  const object = await objectText(s, w);
  const duplicates = new Set<string>();
  for (const other of others) {
    const theirs = listOf(other.scoped_fields);
    mine.filter((f) => theirs.includes(f)).forEach((f) => duplicates.add(f));
    if (!mine.length) {
      const what = type.data_type === 'contact-or-team' ? display(s.related('contact') ? contactResource : teamResource, s.related('contact') ?? s.related('team')) : pyStr(s.values._value);
      return { scoped_fields: [`This Object Metadata ${type.name} - ${object} - ${what} scoping all the fields for ${object} has overlapped with the scoped fields of other Object Metadata instances.`] };
    }
    if (!theirs.length) return { scoped_fields: [`There are other Object Metadata instances of metadata type ${type.name} scoping all the fields for ${object}`] };
  }
  if (duplicates.size) return { scoped_fields: [`There are other Object Metadata instances of metadata type ${type.name} scoping the same fields ${pySet([...duplicates])} for ${object}`] };
  return undefined;
}

const display = (def: ResourceDefinition, row: Row | null) => (row ? def.display(row, NO_HELPERS) : 'None');

/** The assigned object as the reference's str() names it: its display (read whoever may view it: a rule's lookup). */
async function objectText(s: WriteState, w: WriteContext): Promise<string> {
  const def = w.ctx.registry.get(String(s.values.assigned_object_type));
  if (!def) return 'None';
  const row = s.related('assigned_object') ?? (await w.exec.query<Row>(sql`SELECT * ${unscoped(def).from(sql`${ident('id')} = ${s.values.assigned_object_id}`)}`))[0] ?? null;
  return display(def, row);
}
