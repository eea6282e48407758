import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { templates } from '../../../core/template/template';
import { BUTTON_CLASSES } from '../jobs/choices';
import { contentTypeError, contentTypeField } from '../content-types/field';

/**
 * A link to an external representation of an object, shown on the objects of one content type
 * (the reference's CustomLink): its text and URL are templates over the object (`obj`), checked
 * by the template sandbox when saved.
 */
export const customLinkResource = defineResource({
  app: 'extras',
  model: 'customlink',
  slug: 'custom-links',
  verboseName: 'custom link',
  naturalKey: ['name'],
  ordering: ['group_name', 'weight', 'name'],
  display: (r) => r.name,
  fields: {
    content_type: contentTypeField(),
    name: field.string({ required: true, unique: true, maxLength: 255 }),
    text: field.string({
      required: true,
      maxLength: 500,
      help: 'Template code for link text. Reference the object as {{ obj }} such as {{ obj.platform.name }}. Links which render as empty text will not be displayed.',
    }),
    target_url: field.string({ required: true, maxLength: 500, label: 'URL', help: 'Template code for link URL. Reference the object as {{ obj }} such as {{ obj.platform.name }}.' }),
    weight: field.integer({ default: 100, minValue: 0, maxValue: 32767 }),
    group_name: field.string({ maxLength: 255, help: 'Links with the same group will appear as a dropdown menu' }),
    button_class: field.choice(BUTTON_CLASSES, { default: 'default', maxLength: 30, help: 'The class of the first link in a group will be used for the dropdown button' }),
    new_window: field.boolean({ help: 'Force link to open in a new window' }),
  },
  search: ['name', 'target_url', 'text', 'content_type'],
  features: ['notes'],
  rules(s, { ctx }) {
    const errors: Record<string, string[]> = {};
    if (s.touched.has('content_type')) {
      const problem = contentTypeError(ctx, String(s.values.content_type ?? ''));
      if (problem) errors.content_type = [problem];
    }
    for (const key of ['text', 'target_url'] as const) {
      const problem = templates.validate(String(s.values[key] ?? ''));
      if (problem) errors[key] = [`Template syntax error: ${problem}`];
    }
    return errors;
  },
});
