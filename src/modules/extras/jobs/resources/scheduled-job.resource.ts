import { column } from '../../../../database/schema/schema';
import { ident, inList, sql } from '../../../../database/sql';
import { visibleRows } from '../../../../core/resource/query/scope';
import { defineResource } from '../../../../core/resource/definition';
import { field } from '../../../../core/resource/fields';
import { userResource } from '../../../users/resources/user.resource';
import { EXECUTION_TYPES } from '../choices';
import { jobQueueResource } from './job-queue.resource';
import { jobResource } from './job.resource';

/**
 * A run of a job for later, once or recurring (the reference's ScheduledJob): made by
 * `POST jobs/<id>/run/` with a `schedule`; the worker enqueues it when `next_run_at` comes and
 * moves that on (recurring) or disables it (once). Read-only here.
 */
export const scheduledJobResource = defineResource({
  app: 'extras',
  model: 'scheduledjob',
  slug: 'scheduled-jobs',
  verboseName: 'scheduled job',
  readOnly: true,
  // Written by the run endpoint and the worker; clients may delete them (the reference's DestroyModelMixin and bulk destroy).
  writes: ['delete'],
  naturalKey: ['id'],
  ordering: ['name'],
  display: (r) => `${r.name}: ${r.interval}`,
  fields: {
    queue: field.computed(['job_queue_id'], { type: 'string', nullable: true, readOnly: true }, () => null, {
      help: 'The name of the job queue (kept from the API before job queues were objects)',
      load: async (rows, ctx, exec) => {
        const ids = [...new Set(rows.map((r) => r.job_queue_id).filter(Boolean).map(String))];
        const names = new Map<string, string>();
        if (ids.length) {
          const queues = await visibleRows(ctx, exec, jobQueueResource, 'q');
          for (const q of await exec.query<{ id: string; name: string }>(sql`SELECT q.${ident('id')}, q.${ident('name')} ${queues.from(inList(sql`q.${ident('id')}`, ids))}`)) names.set(String(q.id), q.name);
        }
        return new Map(rows.map((r) => [String(r.id), names.get(String(r.job_queue_id)) ?? null]));
      },
    }),
    name: field.string({ maxLength: 255, help: 'Short Description For This Task' }),
    task: field.string({ maxLength: 200, help: 'The name of the job to run' }),
    job_model: field.foreignKey(() => jobResource, { nullable: true, relatedName: 'scheduled_jobs' }),
    interval: field.choice(EXECUTION_TYPES, { maxLength: 255 }),
    args: field.json({ default: () => [], listOf: { type: 'string' } }),
    kwargs: field.json({ default: () => ({}) }),
    celery_kwargs: field.json({ default: () => ({}) }),
    job_queue: field.foreignKey(() => jobQueueResource, { nullable: true, relatedName: 'scheduled_jobs' }),
    one_off: field.boolean({ help: 'If True, the schedule will only run the task a single time' }),
    start_time: field.datetime({ help: 'Datetime when the schedule should begin triggering the task to run' }),
    enabled: field.boolean({ default: true, help: 'Set to False to disable the schedule' }),
    last_run_at: field.datetime({ nullable: true, help: 'Datetime that the schedule last triggered the task to run' }),
    total_run_count: field.integer({ default: 0, minValue: 0, help: 'Running count of how many times the schedule has triggered the task' }),
    date_changed: field.datetime({ help: 'Datetime that this scheduled job was last modified' }),
    description: field.text({ help: 'Detailed description about the details of this scheduled job' }),
    user: field.foreignKey(() => userResource, { nullable: true, relatedName: 'scheduled_jobs', help: 'User that requested the schedule' }),
    approved_by_user: field.foreignKey(() => userResource, { nullable: true, relatedName: '+', help: 'User that approved the schedule' }),
    approval_required: field.boolean(),
    approved_at: field.datetime({ nullable: true, help: 'Datetime that the schedule was approved' }),
    crontab: field.string({ maxLength: 255, help: 'Cronjob syntax string for custom scheduling' }),
    time_zone: field.string({ maxLength: 50, default: 'UTC' }),
  },
  columns: { next_run_at: column.datetime({ nullable: true }) },
  indexes: [['enabled', 'next_run_at']],
  search: ['name', 'task', 'description'],
  features: [],
});
