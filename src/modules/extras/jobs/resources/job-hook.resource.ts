import type { WriteContext, WriteState } from '../../../../core/resource/definition';
import { defineResource } from '../../../../core/resource/definition';
import { field } from '../../../../core/resource/fields';
import { unscoped } from '../../../../core/resource/query/rows';
import { ident, inList, or, sql } from '../../../../database/sql';
import { jobResource } from './job.resource';

/** An enabled hook or button must name a job that is installed and enabled (the reference's clean()). */
export function jobNotRunnable(s: WriteState) {
  const job = s.related('job');
  if (s.values.enabled && job && !(job.installed && job.enabled)) return { enabled: ['The selected Job is not installed and enabled'] };
}

const ACTIONS = ['create', 'update', 'delete'] as const;

/** Two hooks may not run the same job for the same action on the same content type. */
async function conflicts(s: WriteState, w: WriteContext) {
  const types = await s.linked('content_types');
  const actions = ACTIONS.filter((a) => s.values[`type_${a}`]);
  if (!types.length || !actions.length || !s.values.job_id) return;
  const others = await w.exec.query<{ content_type: string; create: boolean; update: boolean; delete: boolean }>(
    sql`SELECT l.${ident('content_type')}, h.${ident('type_create')} AS ${ident('create')}, h.${ident('type_update')} AS ${ident('update')}, h.${ident('type_delete')} AS ${ident('delete')}
        FROM ${unscoped(jobHookResource, 'h').table} JOIN ${ident('extras_jobhook_content_types')} l ON l.${ident('jobhook_id')} = h.${ident('id')}
        WHERE h.${ident('job_id')} = ${s.values.job_id} AND h.${ident('id')} <> ${s.values.id} AND ${inList(sql`l.${ident('content_type')}`, types)}
          AND ${or(actions.map((a) => sql`h.${ident(`type_${a}`)} = ${true}`))}`,
  );
  if (!others.length) return;
  const job = s.related('job')?.name ?? s.values.job_id;
  const errors: Record<string, string[]> = {};
  for (const o of others) {
    for (const a of actions) {
      if (!o[a]) continue;
      (errors[`type_${a}`] ??= []).push(`A job hook already exists for ${a} on ${o.content_type.replace('.', ' | ')} to job ${job}`);
    }
  }
  return errors;
}

/**
 * Runs a job hook receiver when objects of its content types are created, updated or deleted
 * (the reference's JobHook). Which hooks match a batch of changes: jobs/hooks.ts.
 */
export const jobHookResource = defineResource({
  app: 'extras',
  model: 'jobhook',
  watched: true,
  slug: 'job-hooks',
  verboseName: 'job hook',
  naturalKey: ['name'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    content_types: field.contentTypes({ table: 'extras_jobhook_content_types', source: 'jobhook_id' }, (d) => !d.readOnly, {
      label: 'Object types',
      required: true,
      help: 'The object(s) to which this job hook applies.',
    }),
    enabled: field.boolean({ default: true }),
    job: field.foreignKey(() => jobResource, { required: true, onDelete: 'cascade', relatedName: 'job_hooks', limit: () => ({ is_job_hook_receiver: true }), help: 'The job that this job hook will initiate' }),
    name: field.string({ maxLength: 255, required: true, unique: true }),
    type_create: field.boolean({ help: 'Call this job hook when a matching object is created.' }),
    type_delete: field.boolean({ help: 'Call this job hook when a matching object is deleted.' }),
    type_update: field.boolean({ help: 'Call this job hook when a matching object is updated.' }),
  },
  search: ['name'],
  features: ['customFields', 'notes'],
  async rules(s, w) {
    if (!s.values.type_create && !s.values.type_delete && !s.values.type_update) return { non_field_errors: ['You must select at least one type: create, update, and/or delete.'] };
    return jobNotRunnable(s) ?? (await conflicts(s, w));
  },
});
