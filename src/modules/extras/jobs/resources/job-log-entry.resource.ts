import { defineResource } from '../../../../core/resource/definition';
import { field } from '../../../../core/resource/fields';
import { LOG_LEVELS } from '../choices';
import { jobResultResource } from './job-result.resource';

/** A line a job logged while it ran (the reference's JobLogEntry); read-only. */
export const jobLogEntryResource = defineResource({
  app: 'extras',
  model: 'joblogentry',
  slug: 'job-logs',
  verboseName: 'job log entry',
  verboseNamePlural: 'job log entries',
  readOnly: true,
  naturalKey: ['id'],
  ordering: ['created'],
  display: (r) => r.message,
  fields: {
    job_result: field.foreignKey(() => jobResultResource, { required: true, onDelete: 'cascade', relatedName: 'job_log_entries' }),
    log_level: field.choice(LOG_LEVELS, { default: 'info', maxLength: 32 }),
    grouping: field.string({ maxLength: 100, default: 'main' }),
    message: field.text(),
    log_object: field.string({ maxLength: 200 }),
    absolute_url: field.string({ maxLength: 255 }),
  },
  search: ['message', 'log_object', 'grouping'],
  features: [],
});
