import type { Executor } from '../../../database/db';
import { ident, sql } from '../../../database/sql';
import { storedBoolean } from '../../../core/resource/serialize/values';
import { unscoped } from '../../../core/resource/query/rows';
import { DEFAULT_QUEUE } from './choices';
import { JobQueue, RunRequest } from './job-queue';
import { jobHookResource } from './resources/job-hook.resource';
import { jobQueueResource } from './resources/job-queue.resource';
import { jobResource } from './resources/job.resource';

/** One object change, as the change log reports it. */
export interface ObjectChange {
  action: 'create' | 'update' | 'delete';
  /** `app_label.model`. */
  object_type: string;
  object_id: string;
  /** The change record's id, when there is one (the change log's). */
  change_id?: string | null;
}

/** An enabled job hook whose job is installed and enabled, once per content type it lists (with the job and its queue). */
export type JobHookRow = Record<string, unknown> & { hook_id: string; content_type: string };

/** Every enabled hook whose job is installed and enabled, by content type: one statement (the listener keeps it in a watched cache). */
export async function loadJobHooks(exec: Executor): Promise<JobHookRow[]> {
  return exec.query<JobHookRow>(
    sql`SELECT h.${ident('id')} AS ${ident('hook_id')}, h.${ident('type_create')}, h.${ident('type_update')}, h.${ident('type_delete')}, l.${ident('content_type')},
               j.${ident('id')}, j.${ident('name')}, j.${ident('module_name')}, j.${ident('job_class_name')}, q.${ident('id')} AS ${ident('queue_id')}, q.${ident('name')} AS ${ident('queue_name')}
        FROM ${unscoped(jobHookResource, 'h').table}
        JOIN ${ident('extras_jobhook_content_types')} l ON l.${ident('jobhook_id')} = h.${ident('id')}
        JOIN ${unscoped(jobResource, 'j').table} ON j.${ident('id')} = h.${ident('job_id')}
        LEFT JOIN ${unscoped(jobQueueResource, 'q').table} ON q.${ident('id')} = j.${ident('default_job_queue_id')}
        WHERE h.${ident('enabled')} = ${true} AND j.${ident('enabled')} = ${true} AND j.${ident('installed')} = ${true}
        ORDER BY h.${ident('name')}`,
  );
}

/**
 * Queues the runs of the job hooks a batch of changes matches: enabled hooks whose content types
 * include the changed object's type, for that action, whose job is installed and enabled; one run
 * per (hook, change), with `data` naming the change, as the user who made it. Two statements
 * whatever the batch (the hooks, unless given, then the runs; none when no hook matches); inside
 * the write's transaction, so a rolled back write queues nothing. Returns the job result ids.
 */
export async function runJobHooks(exec: Executor, queue: JobQueue, changes: ObjectChange[], userId: string | null, known?: JobHookRow[]): Promise<string[]> {
  if (!changes.length) return [];
  const hooks = known ?? (await loadJobHooks(exec));
  const runs: RunRequest[] = [];
  for (const change of changes) {
    for (const h of hooks) {
      if (h.content_type !== change.object_type || !storedBoolean(h[`type_${change.action}`])) continue;
      runs.push({
        job: h,
        userId,
        data: { object_change: change.change_id ?? null, action: change.action, object_type: change.object_type, object_id: change.object_id, job_hook: String(h.hook_id) },
        queue: { id: h.queue_id as string, name: (h.queue_name as string | null) ?? DEFAULT_QUEUE },
      });
    }
  }
  return runs.length ? queue.enqueue(exec, runs) : [];
}
