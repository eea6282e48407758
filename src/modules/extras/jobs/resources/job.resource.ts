import { defineResource } from '../../../../core/resource/definition';
import { ConflictError } from '../../../../core/resource/errors';
import { field } from '../../../../core/resource/fields';
import { unscoped } from '../../../../core/resource/query/rows';
import { visibleRows } from '../../../../core/resource/query/scope';
import { ident, inList, sql } from '../../../../database/sql';
import { DEFAULT_QUEUE, JOB_MAX_NAME_LENGTH } from '../choices';
import { jobQueueResource } from './job-queue.resource';

const SENSITIVE_APPROVAL = 'A job with sensitive variables cannot also be marked as requiring approval';
const OVERRIDE_HELP = 'If set, the configured value will remain even if the underlying Job source code changes';
/** What API 2.0 showed of a job: its queues came with 2.1's redesign (spec 9.7). */
const SINCE_2_1 = { min: '2.1' };

/** The fields a job's code declares and an administrator may override (each with `<name>_override`). */
export const OVERRIDABLE = ['grouping', 'name', 'description', 'approval_required', 'dryrun_default', 'hidden', 'soft_time_limit', 'time_limit', 'has_sensitive_variables', 'is_singleton'] as const;

const override = (o: object = {}) => field.boolean({ help: OVERRIDE_HELP, ...o });

/**
 * A job that an app provides (the reference's Job): a record per registered job class, made and
 * kept up to date at start (jobs/job-registry.ts); administrators enable it and override what
 * its code declares. Running it is `POST jobs/<id>/run/` (jobs.controller.ts).
 */
export const jobResource = defineResource({
  app: 'extras',
  model: 'job',
  watched: true,
  slug: 'jobs',
  // Records come from the registered job classes: clients change and delete them, never create them (the reference's 405).
  writes: ['update', 'delete'],
  naturalKey: ['name'],
  ordering: ['grouping', 'name'],
  display: (r) => r.name,
  fields: {
    task_queues: field.computed([], { type: 'array', items: { type: 'string' }, readOnly: true }, () => [], {
      help: 'The names of the queues this job may run on (kept from the API before job queues were objects)',
      load: async (rows, ctx, exec) => {
        const out = new Map<string, unknown>(rows.map((r) => [String(r.id), []]));
        if (!rows.length) return out;
        const queues = await visibleRows(ctx, exec, jobQueueResource, 'q');
        const found = await exec.query<{ job_id: string; name: string }>(
          sql`SELECT a.${ident('job_id')}, q.${ident('name')} ${queues.fromJoined(sql`JOIN ${ident('extras_jobqueueassignment')} a ON a.${ident('job_queue_id')} = q.${ident('id')}`, inList(sql`a.${ident('job_id')}`, rows.map((r) => String(r.id))))} ORDER BY q.${ident('name')}`,
        );
        for (const f of found) (out.get(String(f.job_id)) as string[]).push(f.name);
        return out;
      },
    }),
    task_queues_override: field.computed(['job_queues_override'], { type: 'boolean', readOnly: true }, (r) => !!r.job_queues_override),
    module_name: field.string({ maxLength: JOB_MAX_NAME_LENGTH, required: true, immutable: 'The module of a job cannot be changed.', help: 'Dotted name of the module providing this job' }),
    job_class_name: field.string({ maxLength: JOB_MAX_NAME_LENGTH, required: true, immutable: 'The class of a job cannot be changed.', help: 'Name of the class providing this job' }),
    grouping: field.string({ maxLength: 255, required: true, index: true, help: 'Human-readable grouping that this job belongs to' }),
    name: field.string({ maxLength: JOB_MAX_NAME_LENGTH, required: true, unique: true, help: 'Human-readable name of this job' }),
    description: field.text({ help: 'Markdown formatting and a limited subset of HTML are supported' }),
    installed: field.boolean({ readOnly: true, default: false, index: true, help: 'Whether the code providing this job is presently installed and loadable' }),
    enabled: field.boolean({ default: false, help: 'Whether this job can be executed by users' }),
    is_job_hook_receiver: field.boolean({ readOnly: true, help: 'Whether this job is a job hook receiver' }),
    is_job_button_receiver: field.boolean({ readOnly: true, help: 'Whether this job is a job button receiver' }),
    has_sensitive_variables: field.boolean({ default: true, help: 'Whether this job contains sensitive variables' }),
    is_singleton: field.boolean({ help: 'Whether this job should fail to run if another instance of this job is already running' }),
    approval_required: field.boolean({ help: 'Whether the job requires approval from another user before running' }),
    hidden: field.boolean({ index: true, help: 'Whether the job defaults to not being shown in the UI' }),
    dryrun_default: field.boolean({ help: 'Whether the job defaults to running with dryrun argument set to true' }),
    read_only: field.boolean({ readOnly: true, help: 'Set to true if the job does not make any changes to the environment' }),
    soft_time_limit: field.decimal({ maxDigits: 12, decimalPlaces: 3, default: 0, minValue: 0, help: 'Maximum runtime in seconds before the job is asked to stop; 0 for the system default' }),
    time_limit: field.decimal({ maxDigits: 12, decimalPlaces: 3, default: 0, minValue: 0, help: 'Maximum runtime in seconds before the job is stopped; 0 for the system default' }),
    supports_dryrun: field.boolean({ readOnly: true, help: 'If supported, allows the job to bypass approval when running with dryrun argument set to true' }),
    default_job_queue: field.foreignKey(() => jobQueueResource, {
      versions: SINCE_2_1,
      relatedName: 'default_for_jobs',
      default: async (w) => (await w.exec.query<{ id: string }>(sql`SELECT ${ident('id')} FROM ${unscoped(jobQueueResource).table} WHERE ${ident('name')} = ${DEFAULT_QUEUE}`))[0]?.id ?? null,
    }),
    job_queues: field.manyToMany(() => jobQueueResource, { table: 'extras_jobqueueassignment', source: 'job_id', target: 'job_queue_id' }, { writable: true, versions: SINCE_2_1, relatedName: 'jobs' }),
    grouping_override: override(),
    name_override: override(),
    description_override: override(),
    approval_required_override: override(),
    dryrun_default_override: override(),
    hidden_override: override(),
    soft_time_limit_override: override(),
    time_limit_override: override(),
    has_sensitive_variables_override: override(),
    job_queues_override: override({ versions: SINCE_2_1 }),
    default_job_queue_override: override({ versions: SINCE_2_1 }),
    is_singleton_override: override(),
  },
  uniqueTogether: [{ fields: ['module_name', 'job_class_name'] }],
  search: ['name', 'grouping', 'description', 'module_name', 'job_class_name'],
  features: ['tags', 'customFields', 'notes'],
  rules(s) {
    if (!s.values.approval_required || !s.values.has_sensitive_variables) return;
    const errors: Record<string, string[]> = {};
    if (s.touched.has('approval_required')) errors.approval_required = [SENSITIVE_APPROVAL];
    if (s.touched.has('has_sensitive_variables')) errors.has_sensitive_variables = [SENSITIVE_APPROVAL];
    if (!Object.keys(errors).length) errors.approval_required = [SENSITIVE_APPROVAL];
    return errors;
  },
  beforeDelete(rows) {
    // netkeel's own jobs come back at every start: the reference refuses to delete its system jobs.
    const own = rows.find((r) => String(r.module_name).startsWith('netkeel.'));
    if (own) throw new ConflictError(`Unable to delete Job ${own.name}. System Job cannot be deleted`);
  },
  beforeSave(states) {
    // An administrator's change to what the code declares sticks: it is an override.
    for (const s of states) {
      if (s.create) continue;
      for (const f of OVERRIDABLE) if (s.touched.has(f) && !s.touched.has(`${f}_override`)) s.values[`${f}_override`] = true;
      if (s.touched.has('job_queues') && !s.touched.has('job_queues_override')) s.values.job_queues_override = true;
      if (s.touched.has('default_job_queue') && !s.touched.has('default_job_queue_override')) s.values.default_job_queue_override = true;
    }
  },
});
