import { defineResource } from '../../../../core/resource/definition';
import { field } from '../../../../core/resource/fields';
import { BUTTON_CLASSES } from '../choices';
import { jobResource } from './job.resource';
import { jobNotRunnable } from './job-hook.resource';

/**
 * A button shown on the objects of some content types that runs a job receiver with the object
 * (the reference's JobButton); `?content_types=dcim.device` lists a type's buttons.
 */
export const jobButtonResource = defineResource({
  app: 'extras',
  model: 'jobbutton',
  slug: 'job-buttons',
  verboseName: 'job button',
  naturalKey: ['name'],
  ordering: ['group_name', 'weight', 'name'],
  display: (r) => r.name,
  fields: {
    content_types: field.contentTypes({ table: 'extras_jobbutton_content_types', source: 'jobbutton_id' }, () => true, {
      label: 'Object types',
      required: true,
      help: 'The object type(s) to which this job button applies.',
    }),
    name: field.string({ maxLength: 255, required: true, unique: true }),
    enabled: field.boolean({ default: true }),
    text: field.string({ maxLength: 500, required: true, help: 'Template for the button text; the object is {{ obj }}. Buttons whose text renders empty are not shown.' }),
    job: field.foreignKey(() => jobResource, { required: true, onDelete: 'cascade', relatedName: 'job_buttons', limit: () => ({ is_job_button_receiver: true }), help: 'Job this button will run' }),
    weight: field.integer({ default: 100, minValue: 0, maxValue: 32767 }),
    group_name: field.string({ maxLength: 255, help: 'Buttons with the same group will appear as a dropdown menu.' }),
    button_class: field.choice(BUTTON_CLASSES, { default: 'default', maxLength: 30 }),
    confirmation: field.boolean({ default: true, help: 'Enable confirmation pop-up box.' }),
  },
  search: ['name', 'text', 'group_name'],
  features: ['notes'],
  rules: (s) => jobNotRunnable(s),
});
