import { defineResource, model } from '../../../../core/resource/definition';
import { field } from '../../../../core/resource/fields';
import { column } from '../../../../database/schema/schema';
import { userResource } from '../../../users/resources/user.resource';
import { RESULT_STATUSES } from '../choices';
import { jobResource } from './job.resource';

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v ?? ''));

/**
 * The outcome of one run of a job (the reference's JobResult): written by the run endpoint
 * (PENDING) and the worker (STARTED, then SUCCESS or FAILURE with the traceback); read-only here.
 */
export const jobResultResource = defineResource({
  app: 'extras',
  model: 'jobresult',
  slug: 'job-results',
  verboseName: 'job result',
  readOnly: true,
  // Written by the run endpoint and the worker; clients may delete them (the reference's DestroyModelMixin and bulk destroy).
  writes: ['delete'],
  naturalKey: ['id'],
  ordering: ['-date_created'],
  display: (r) => `${r.name} started at ${iso(r.date_created)} (${r.status})`,
  fields: {
    job_model: field.foreignKey(() => jobResource, { nullable: true, relatedName: 'job_results' }),
    name: field.string({ maxLength: 255, index: true }),
    task_name: field.string({ maxLength: 255, nullable: true, help: 'Registered name of the task' }),
    date_created: field.datetime({ index: true }),
    date_started: field.datetime({ nullable: true, index: true }),
    date_done: field.datetime({ nullable: true, index: true }),
    user: field.foreignKey(() => userResource, { nullable: true, relatedName: 'job_results' }),
    status: field.choice(RESULT_STATUSES, { maxLength: 30, default: 'PENDING', help: 'Current state of the job being run' }),
    result: field.json({ nullable: true, help: 'The data returned by the job' }),
    worker: field.string({ maxLength: 100, nullable: true }),
    task_args: field.json({ default: () => [], listOf: { type: 'string' } }),
    task_kwargs: field.json({ default: () => ({}) }),
    celery_kwargs: field.json({ default: () => ({}) }),
    traceback: field.text({ nullable: true }),
    meta: field.json({ nullable: true }),
    scheduled_job: field.foreignKey(model('extras.scheduledjob'), { nullable: true, relatedName: 'job_results' }),
  },
  // A run that asked to be tried again (RETRY) waits until `_run_after`; `_attempts` counts its runs.
  columns: { _run_after: column.datetime({ nullable: true }), _attempts: column.integer({ nullable: true }) },
  search: ['name', 'status'],
  features: ['customFields'],
  // The worker's queue: what is waiting, oldest first.
  indexes: [['status', 'date_created']],
});
