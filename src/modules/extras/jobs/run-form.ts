import type { NkRequest } from '../../../core/http/request';

/** Is the run request a multipart form (a job with file variables)? */
export const isMultipart = (req: NkRequest) => /^multipart\/form-data\b/i.test(String(req.headers['content-type'] ?? ''));

/**
 * A multipart run request in the JSON request's terms (the reference's JobMultiPartInputSerializer):
 * `_schedule_name`, `_schedule_start_time`, `_schedule_interval`, `_schedule_crontab`, `_task_queue`
 * and `_job_queue` say how to run; every other part is the job's data (files included).
 */
export function fromForm(form: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  const schedule: Record<string, unknown> = {};
  const out: Record<string, unknown> = { data };
  for (const [k, v] of Object.entries(form)) {
    if (k.startsWith('_schedule_')) schedule[k.slice('_schedule_'.length)] = v;
    else if (k === '_task_queue' || k === '_job_queue') out[k.slice(1)] = v;
    else data[k] = v;
  }
  if (Object.keys(schedule).length) out.schedule = schedule;
  return out;
}
