import { defineResource, objectType, ResourceDefinition, WriteContext } from '../../../core/resource/definition';
import { ValidationError } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { unscoped } from '../../../core/resource/query/rows';
import { filterCompiler } from '../../../core/resource/query/scope';
import { slugifyText } from '../../../core/resource/serialize/values';
import { ident, sql } from '../../../database/sql';
import { filterParams, isSymmetric, relatable, RELATIONSHIP_TYPES, REQUIRED_ON } from '../relationships/definitions';

/** The reference's AutoSlugField with slugify_dashes_to_underscores: the label's slug, underscores for dashes. */
export const relationshipKey = (label: string) => slugifyText(label).replace(/-/g, '_').slice(0, 100);

const GRAPHQL_SAFE = /^[_A-Za-z][_0-9A-Za-z]*$/;

const contentType = (help: string) =>
  field.string({ required: true, maxLength: 100, help, filter: true });

/** Django's model label (`dcim.Device`), as the reference names a model in messages. */
export const modelLabel = (d: ResourceDefinition) => `${d.appLabel ?? d.app}.${d.className}`;

/**
 * A side's filter, checked as the reference's clean(): an object whose every key is a filter of
 * the side's model and whose values that filter accepts, compiled by the same compiler as a
 * query string.
 */
async function filterErrors(w: WriteContext, target: ResourceDefinition, filter: unknown): Promise<string[]> {
  const name = modelLabel(target);
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return [`Filter for ${name} must be a dictionary`];
  const errors: string[] = [];
  for (const [key, values] of filterParams(filter as Record<string, unknown>)) {
    try {
      await filterCompiler(w.ctx, w.exec).fromQuery(target, new Map([[key, values]]), 'vf');
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      const messages = Object.values(e.errors as Record<string, string[]>).flat();
      if (messages.includes('Unknown filter field')) errors.push(`'${key}' is not a valid filter parameter for ${name} object`);
      else errors.push(`'${key}': ${messages.join(', ')}`);
    }
  }
  return errors;
}

/**
 * A relationship between the objects of two models (any two, or one with itself): its
 * cardinality, the labels and visibility of each side, filters naming which objects of a side
 * may take part, and a side on which every object must have a peer. The associations themselves
 * are `extras.relationshipassociation` objects, written here or through any model's
 * `relationships` key (relationships/extension.ts).
 */
export const relationshipResource = defineResource({
  app: 'extras',
  model: 'relationship',
  slug: 'relationships',
  naturalKey: ['key'],
  // Every write of every model reads them: cached (relationships/source.ts), the cache told of changes.
  watched: true,
  ordering: ['label'],
  display: (r) => String(r.label),
  fields: {
    label: field.string({ required: true, unique: true, maxLength: 255, help: 'Label of the relationship as displayed to users' }),
    key: field.string({ unique: true, maxLength: 100, help: 'Internal relationship key. Please use underscores rather than dashes in this key.' }),
    description: field.string({ maxLength: 255 }),
    type: field.choice(RELATIONSHIP_TYPES, { default: 'many-to-many', maxLength: 50, help: 'Cardinality of this relationship' }),
    required_on: field.choice(REQUIRED_ON, {
      default: '',
      blank: true,
      maxLength: 12,
      help: 'Objects on the specified side MUST implement this relationship. Not permitted for symmetric relationships.',
    }),
    source_type: contentType('The source object type to which this relationship applies.'),
    source_label: field.string({ maxLength: 255, label: 'Source Label', help: 'Label for related destination objects, as displayed on the source object.' }),
    source_hidden: field.boolean({ label: 'Hide for source object', help: 'Hide this relationship on the source object.' }),
    source_filter: field.json({ nullable: true, help: 'Filterset filter matching the applicable source objects of the selected type' }),
    destination_type: contentType('The destination object type to which this relationship applies.'),
    destination_label: field.string({ maxLength: 255, label: 'Destination Label', help: 'Label for related source objects, as displayed on the destination object.' }),
    destination_hidden: field.boolean({ label: 'Hide for destination object', help: 'Hide this relationship on the destination object.' }),
    destination_filter: field.json({ nullable: true, help: 'Filterset filter matching the applicable destination objects of the selected type' }),
    advanced_ui: field.boolean({ label: 'Move to Advanced tab', help: 'Hide this field from the object\'s primary information tab. It will appear in the "Advanced" tab instead.' }),
  },
  search: ['label', 'description'],
  features: ['notes'],
  async validateBatch(states, w) {
    return Promise.all(
      states.map(async (s) => {
        const v = s.values;
        const errors: Record<string, string[]> = {};
        const add = (k: string, m: string) => (errors[k] ??= []).push(m);
        if (!v.key) v.key = relationshipKey(String(v.label ?? ''));
        if (!GRAPHQL_SAFE.test(String(v.key))) add('key', 'This key is not Python/GraphQL safe. Please do not start the key with a digit and do not use hyphens or whitespace');
        const targets: Record<string, ResourceDefinition | undefined> = {};
        for (const side of ['source', 'destination']) {
          const type = String(v[`${side}_type`] ?? '');
          const target = w.ctx.registry.get(type);
          if (!target || !relatable(target)) {
            add(`${side}_type`, /^\w+\.\w+$/.test(type) ? `Invalid content type: ${type}` : `Invalid value. Specify a content type as '<app_label>.<model_name>'.`);
            continue;
          }
          targets[side] = target;
        }
        if (Object.keys(errors).length) return errors;
        for (const side of ['source', 'destination']) {
          const filter = v[`${side}_filter`];
          if (filter === null || filter === undefined || (typeof filter === 'object' && !Array.isArray(filter) && !Object.keys(filter).length)) continue;
          const messages = await filterErrors(w, targets[side]!, filter);
          if (messages.length) errors[`${side}_filter`] = messages;
        }
        if (Object.keys(errors).length) return errors;
        if (isSymmetric(v.type)) {
          if (v.source_type !== v.destination_type) add('destination_type', 'Must match source_type for a symmetric relationship');
          if (v.source_label !== v.destination_label) {
            if (!v.source_label) v.source_label = v.destination_label;
            else if (!v.destination_label) v.destination_label = v.source_label;
            else add('destination_label', 'Must match source_label for a symmetric relationship');
          }
          if (Boolean(v.source_hidden) !== Boolean(v.destination_hidden)) add('destination_hidden', 'Must match source_hidden for a symmetric relationship');
          const empty = (f: unknown) => f === null || f === undefined || (typeof f === 'object' && !Object.keys(f as object).length);
          if (JSON.stringify(v.source_filter ?? null) !== JSON.stringify(v.destination_filter ?? null)) {
            if (empty(v.source_filter)) v.source_filter = v.destination_filter;
            else if (empty(v.destination_filter)) v.destination_filter = v.source_filter;
            else add('destination_filter', 'Must match source_filter for a symmetric relationship');
          }
          if (v.required_on) add('required_on', 'Symmetric relationships cannot be marked as required.');
          if (Object.keys(errors).length) return errors;
        }
        if (s.existing) {
          const old = s.existing;
          const changed = (k: string) => String(old[k]) !== String(v[k]);
          if (changed('type') || changed('source_type') || changed('destination_type')) {
            const assoc = w.ctx.registry.get('extras.relationshipassociation')!;
            // A model rule's lookup: whether any association exists, whoever may see it.
            const [{ n }] = await w.exec.query<{ n: number }>(sql`SELECT COUNT(*) AS n ${unscoped(assoc).from(sql`${ident('relationship_id')} = ${String(old.id)}`)}`);
            if (Number(n)) {
              if (changed('type')) {
                add('non_field_errors', 'Not supported to change the type of the relationship when some associations are present in the database, delete all associations first before modifying the type.');
              } else if (changed('source_type')) {
                add('non_field_errors', 'Not supported to change the type of the source object when some associations are present in the database, delete all associations first before modifying the source type.');
              } else {
                add('non_field_errors', 'Not supported to change the type of the destination object when some associations are present in the database, delete all associations first before modifying the destination type.');
              }
            }
          }
        }
        return Object.keys(errors).length ? errors : undefined;
      }),
    );
  },
});

export const relationshipObjectType = objectType(relationshipResource);
