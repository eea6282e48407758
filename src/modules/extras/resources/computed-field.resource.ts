import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { CONTENT_TYPE_LENGTH } from '../../../core/resource/storage';
import { templates } from '../../../core/template/template';
import { contentTypeError } from '../content-types/field';

/** The reference's `slugify_dashes_to_underscores`: Django's slugify of the label, dashes as underscores. */
export function keyFromLabel(label: string): string {
  return label
    .normalize('NFKD')
    .replace(/[^\x00-\x7f]/g, '')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, '-')
    .replace(/-/g, '_')
    .slice(0, 100);
}

/** A key usable as a Python/GraphQL name (the reference's check_if_key_is_graphql_safe). */
const SAFE_KEY = /^[_A-Za-z][_0-9A-Za-z]*$/;
const UNSAFE_KEY = 'This key is not Python/GraphQL safe. Please do not start the key with a digit and do not use hyphens or whitespace';

/**
 * A read-only value rendered from a template over each object of one content type (Nautobot's
 * ComputedField), shown under `computed_fields` with `include=computed_fields` (the extension in
 * computed-fields/extension.ts). The template is checked when saved; a render that fails shows
 * the fallback value.
 */
export const computedFieldResource = defineResource({
  app: 'extras',
  model: 'computedfield',
  slug: 'computed-fields',
  verboseName: 'computed field',
  naturalKey: ['key'],
  watched: true,
  ordering: ['weight', 'key'],
  display: (r) => r.label,
  fields: {
    content_type: field.string({ required: true, maxLength: CONTENT_TYPE_LENGTH }),
    key: field.string({
      unique: true,
      maxLength: 100,
      help: 'Internal field name. Please use underscores rather than dashes in this key.',
      immutable: 'Key cannot be changed once created',
      populateFrom: (values) => keyFromLabel(String(values.label ?? '')),
    }),
    grouping: field.string({ maxLength: 255, help: 'Human-readable grouping that this computed field belongs to.' }),
    label: field.string({ required: true, maxLength: 255, help: 'Name of the field as displayed to users' }),
    description: field.string({ maxLength: 255 }),
    template: field.text({ required: true, maxLength: 500, help: 'Jinja2 template code for field value' }),
    fallback_value: field.string({ maxLength: 500, help: 'Fallback value (if any) to be output for the field in the case of a template rendering error.' }),
    weight: field.integer({ default: 100, minValue: 0, maxValue: 32767 }),
    advanced_ui: field.boolean({ label: 'Move to Advanced tab', help: 'Hide this field from the object\'s primary information tab. It will appear in the "Advanced" tab instead.' }),
  },
  uniqueTogether: [{ fields: ['content_type', 'label'] }],
  search: ['label', 'description', 'content_type', 'grouping', 'template', 'fallback_value'],
  features: ['notes'],
  rules(s, { ctx }) {
    const errors: Record<string, string[]> = {};
    const type = String(s.values.content_type ?? '');
    if (s.touched.has('content_type')) {
      const problem = contentTypeError(ctx, type, (d) => d.features.includes('customFields'));
      if (problem) errors.content_type = [problem];
    }
    const key = String(s.values.key ?? '');
    if (!SAFE_KEY.test(key)) errors.key = [UNSAFE_KEY];
    const problem = templates.validate(String(s.values.template ?? ''));
    if (problem) errors.template = [`Template syntax error: ${problem}`];
    return errors;
  },
});
