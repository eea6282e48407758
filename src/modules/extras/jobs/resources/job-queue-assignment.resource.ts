import { defineResource } from '../../../../core/resource/definition';
import { link } from '../../../../core/resource/mixin';
import { jobQueueResource } from './job-queue.resource';
import { jobResource } from './job.resource';

/**
 * A job's place on a queue, one object per link (the reference's JobQueueAssignment): the through
 * model of a job's `job_queues`. Writing a job's `job_queues` makes and removes these; they can
 * also be made and removed here. Deleted with either end.
 */
export const jobQueueAssignmentResource = defineResource({
  app: 'extras',
  model: 'jobqueueassignment',
  slug: 'job-queue-assignments',
  verboseName: 'job queue assignment',
  verboseNamePlural: 'job queue assignments',
  mixins: [
    link(
      { name: 'job', target: () => jobResource, relatedName: 'job_queue_assignments' },
      { name: 'job_queue', target: () => jobQueueResource, relatedName: 'job_assignments' },
    ),
  ],
  fields: {},
  search: ['job__name', 'job__grouping', 'job__description', 'job_queue__name', 'job_queue__description', 'job_queue__queue_type'],
  features: [],
});
