import { Controller, Get, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiResponse as ApiAnswer } from '@nestjs/swagger';
import { RequirePermission, ResourceRoute } from '../../../core/auth/decorators';
import type { Action } from '../../../core/context';
import { ApiResponse } from '../../../core/http/api-response';
import { ContextFactory } from '../../../core/http/context.factory';
import { NkRequest, parseBody } from '../../../core/http/request';
import { HttpResult, NotFoundError, PermissionDeniedError } from '../../../core/resource/errors';
import { unscoped } from '../../../core/resource/query/rows';
import { visibleRows } from '../../../core/resource/query/scope';
import { ResourceService } from '../../../core/resource/resource.service';
import { ident, inList, sql } from '../../../database/sql';
import { DEFAULT_QUEUE, EXECUTION_TYPES, ExecutionType, SCHEDULE_TYPES } from './choices';
import { JobQueue } from './job-queue';
import { JobRegistry } from './job-registry';
import { jobLogEntryResource } from './resources/job-log-entry.resource';
import { jobQueueResource } from './resources/job-queue.resource';
import { jobResultResource } from './resources/job-result.resource';
import { jobResource } from './resources/job.resource';
import { scheduledJobResource } from './resources/scheduled-job.resource';
import { parseCrontab } from './schedule';
import { fromForm, isMultipart } from './run-form';
import { storeJobFiles, takeJobFiles } from '../attachments/job-files';
import { describeVariables, JobDataError, validateJobData } from './variables';

const bad = (body: unknown) => new HttpResult(400, body);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
/** The reference's ScheduledJob.earliest_possible_time(): a schedule starts at least this far ahead. */
const EARLIEST_MS = 15_000;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;

interface ScheduleInput {
  name: string;
  interval: ExecutionType;
  startTime: Date | null;
  crontab: string;
}

/** A moment as Python's str() of an aware UTC datetime writes it (`2030-01-01 12:00:00.250000+00:00`). */
function pythonDateTime(d: Date): string {
  const [day, time] = d.toISOString().replace('Z', '').split('T');
  const [hms, ms] = time.split('.');
  return `${day} ${hms}${ms && ms !== '000' ? `.${ms}000` : ''}+00:00`;
}

/** The body's `schedule` as the reference's JobCreationSerializer checks it; errors nest under `schedule`. */
function parseSchedule(raw: unknown, now: Date): ScheduleInput {
  if (!isObject(raw)) throw bad({ schedule: { non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(raw) ? 'list' : typeof raw}.`] } });
  const errors: Record<string, string[]> = {};
  const interval = raw.interval;
  if (interval === undefined || interval === null || interval === '') errors.interval = ['This field is required.'];
  else if (!EXECUTION_TYPES.some(([v]) => v === interval)) errors.interval = [`"${String(interval)}" is not a valid choice.`];
  let startTime: Date | null = null;
  if (raw.start_time !== undefined && raw.start_time !== null) {
    if (typeof raw.start_time !== 'string' || !DATETIME.test(raw.start_time) || Number.isNaN(Date.parse(raw.start_time))) {
      errors.start_time = ['Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'];
    } else startTime = new Date(raw.start_time);
  }
  const name = raw.name === undefined || raw.name === null ? '' : String(raw.name);
  if (name.length > 255) errors.name = ['Ensure this field has no more than 255 characters.'];
  if (Object.keys(errors).length) throw bad({ schedule: errors });
  const type = interval as ExecutionType;
  const crontab = typeof raw.crontab === 'string' ? raw.crontab : '';
  if (SCHEDULE_TYPES.includes(type)) {
    if (!name) throw bad({ schedule: { name: ['Please provide a name for the job schedule.'] } });
    if ((!startTime && type !== 'custom') || (startTime && startTime.getTime() < now.getTime() + EARLIEST_MS - 1000)) {
      throw bad({ schedule: { start_time: ['Please enter a valid date and time greater than or equal to the current date and time.'] } });
    }
    if (type === 'custom' && !parseCrontab(crontab)) throw bad({ schedule: { crontab: ['Please enter a valid crontab.'] } });
  }
  return { name, interval: type, startTime, crontab };
}

/**
 * What a job record has beyond its model: `POST jobs/<id>/run/` (by id or name), `GET
 * jobs/<id>/variables/` and `GET job-results/<id>/logs/`, with the reference's checks and
 * messages. Running needs `extras.run_job`, and the job must be within the requester's `run`
 * constraints (404 otherwise).
 */
@Controller()
export class JobsController {
  constructor(
    private readonly service: ResourceService,
    private readonly contexts: ContextFactory,
    private readonly jobs: JobRegistry,
    private readonly queue: JobQueue,
  ) {}

  @Get('api/extras/jobs/:id/variables')
  @ResourceRoute(jobResource, 'view')
  async variables(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const job = await this.service.findOne(ctx, ctx.db, jobResource, String(req.params.id), 'view');
    const registered = job.installed ? this.jobs.get(`${job.module_name}.${job.job_class_name}`) : undefined;
    if (!registered) throw new NotFoundError();
    return describeVariables(registered.meta.variables ?? {});
  }

  @Get('api/extras/job-results/:id/logs')
  @ResourceRoute(jobResultResource, 'view')
  async logs(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const result = await this.service.findOne(ctx, ctx.db, jobResultResource, String(req.params.id), 'view');
    const rows = await visibleRows(ctx, ctx.db, jobLogEntryResource, 'l');
    const ids = await ctx.db.query<{ id: string }>(sql`SELECT l.${ident('id')} ${rows.from(sql`l.${ident('job_result_id')} = ${String(result.id)}`)} ORDER BY l.${ident('created')}, l.${ident('id')}`);
    return this.service.readBack(ctx, ctx.db, jobLogEntryResource, ids.map((r) => String(r.id)));
  }

  @Post('api/extras/jobs/:id/run')
  @ApiCreatedResponse({ description: 'The run: its job result (and scheduled job, when scheduled)' })
  @ApiAnswer({ status: 405, description: 'The job cannot run here: not installed, its code not found, or run by netkeel itself' })
  @RequirePermission('extras.run_job')
  async run(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const now = ctx.now();
    const job = await this.service.findOne(ctx, ctx.db, jobResource, String(req.params.id), 'run' as Action);
    if (!job.enabled) throw new PermissionDeniedError('This job is not enabled to be run.');
    if (!job.installed) throw new HttpResult(405, { detail: 'This job is not presently installed and cannot be run' });
    const parsed = parseBody(req, false, 'refuse', true) ?? {};
    const body = isMultipart(req) ? fromForm(parsed as Record<string, unknown>) : parsed;
    if (!isObject(body)) throw bad({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(body) ? 'list' : typeof body}.`] });
    const schedule = body.schedule === undefined || body.schedule === null ? null : parseSchedule(body.schedule, now);
    if (job.has_sensitive_variables) {
      if (schedule && schedule.interval !== 'immediately') throw bad({ schedule: { interval: ['Unable to schedule job: Job may have sensitive input variables'] } });
      if (job.approval_required) {
        throw bad([
          'Unable to run or schedule job: This job is flagged as possibly having sensitive variables but is also flagged as requiring approval.One of these two flags must be removed before this job can be scheduled or run.',
        ]);
      }
    }
    const registered = this.jobs.get(`${job.module_name}.${job.job_class_name}`);
    if (!registered) throw new HttpResult(405, { detail: "This job's source code could not be located and cannot be run" });
    if (registered.meta.system) throw new HttpResult(405, { detail: 'This job is run by netkeel itself and cannot be run through the API' });

    const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));
    if (text(body.task_queue) && text(body.job_queue)) throw bad({ task_queue: 'task_queue and job_queue are both specified. Please specify only one or another.' });
    const queues = await ctx.db.query<{ id: string; name: string }>(
      sql`SELECT q.${ident('id')}, q.${ident('name')} FROM ${unscoped(jobQueueResource, 'q').table} WHERE q.${ident('id')} = ${job.default_job_queue_id} OR q.${ident('id')} IN (SELECT a.${ident('job_queue_id')} FROM ${ident('extras_jobqueueassignment')} a WHERE ${inList(sql`a.${ident('job_id')}`, [String(job.id)])})`,
    );
    const byName = new Map(queues.map((q) => [q.name, { id: String(q.id), name: q.name }]));
    const fallback = queues.find((q) => String(q.id) === String(job.default_job_queue_id));
    const wanted = text(body.task_queue) || text(body.job_queue) || fallback?.name || DEFAULT_QUEUE;
    const queue = byName.get(wanted);
    if (!queue) throw bad({ task_queue: [`"${wanted}" is not a valid choice.`] });

    let data: Record<string, unknown>;
    try {
      data = await validateJobData(ctx, registered.meta.variables ?? {}, body.data ?? {});
    } catch (e) {
      if (e instanceof JobDataError) throw bad({ errors: e.errors });
      throw e;
    }
    const dryrun = !!registered.meta.variables?.dryrun && !!data.dryrun;
    const approval = !dryrun && !!job.approval_required;
    let later = schedule && (schedule.interval !== 'immediately' || approval) ? schedule : approval ? ({ name: '', interval: 'immediately', startTime: now, crontab: '' } as ScheduleInput) : null;
    // The reference's create_schedule: an immediate schedule starts now, named after the job and that moment unless named.
    if (later?.interval === 'immediately') later = { ...later, startTime: now, name: later.name || `${job.name} - ${pythonDateTime(now)}` };
    const userId = ctx.principal.user?.id ?? null;
    const taken = takeJobFiles(data);
    data = taken.data;
    const out = await ctx.db.transaction(async (tx) => {
      if (later) {
        const id = await this.queue.schedule(tx, { job, userId, data, queue, ...later, approvalRequired: approval });
        await storeJobFiles(tx, taken.files, null, now);
        return { scheduled_job: (await this.service.readBack(ctx, tx, scheduledJobResource, [id]))[0], job_result: null };
      }
      const [id] = await this.queue.enqueue(tx, [{ job, userId, data, queue }]);
      await storeJobFiles(tx, taken.files, id, now);
      return { scheduled_job: null, job_result: (await this.service.readBack(ctx, tx, jobResultResource, [id]))[0] };
    });
    this.queue.onQueued();
    return new ApiResponse(201, out);
  }
}
