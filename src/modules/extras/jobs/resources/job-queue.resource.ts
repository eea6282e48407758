import { defineResource, model } from '../../../../core/resource/definition';
import { field } from '../../../../core/resource/fields';
import { named } from '../../../../core/resource/mixin';
import { QUEUE_TYPES } from '../choices';

/**
 * A queue jobs run on (the reference's JobQueue). netkeel's worker serves every queue from the
 * database; the type is kept for clients of the reference.
 */
export const jobQueueResource = defineResource({
  app: 'extras',
  model: 'jobqueue',
  watched: true,
  slug: 'job-queues',
  verboseName: 'job queue',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255 }),
    queue_type: field.choice(QUEUE_TYPES, { default: 'celery', maxLength: 50, help: 'The job can either run immediately on the worker or be queued for later.' }),
    tenant: field.foreignKey(model('tenancy.tenant'), { nullable: true, relatedName: 'job_queues' }),
  },
  search: ['description'],
  features: ['tags', 'customFields', 'notes'],
});
