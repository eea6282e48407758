import { defineResource, field, model, named } from '../../src/plugin-api';

export const MAINTENANCE_STATUSES: [string, string][] = [
  ['scheduled', 'Scheduled'],
  ['in-progress', 'In progress'],
  ['completed', 'Completed'],
  ['cancelled', 'Cancelled'],
];

/**
 * A planned window of work at a location: declared exactly as a built-in model is (a name, two
 * datetimes, a choice, a foreign key to dcim.location), with one model rule.
 */
export const maintenanceWindowResource = defineResource({
  app: 'maintenance',
  model: 'maintenancewindow',
  slug: 'maintenance-windows',
  verboseName: 'maintenance window',
  mixins: [named()],
  ordering: ['start_time', 'name'],
  fields: {
    start_time: field.datetime({ required: true, help: 'When the work begins' }),
    end_time: field.datetime({ required: true, help: 'When the work ends' }),
    status: field.choice(MAINTENANCE_STATUSES, { maxLength: 20, default: 'scheduled' }),
    // Deleting a location deletes its maintenance windows.
    location: field.foreignKey(model('dcim.location'), { required: true, onDelete: 'cascade' }),
    description: field.string({ maxLength: 200 }),
  },
  search: ['description'],
  features: ['tags', 'customFields', 'notes'],
  rules(s) {
    const start = s.values.start_time;
    const end = s.values.end_time;
    if (start && end && new Date(end as string | Date).getTime() <= new Date(start as string | Date).getTime()) {
      return { end_time: ['The end must be after the start.'] };
    }
  },
});
