import { Controller, Header, Post, Req } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { ResourceRoute } from '../../../core/auth/decorators';
import type { Action, RequestContext } from '../../../core/context';
import { ApiResponse } from '../../../core/http/api-response';
import { ContextFactory } from '../../../core/http/context.factory';
import { EventBrokers } from '../../../core/events/event-brokers';
import type { NkRequest } from '../../../core/http/request';
import { HttpResult, PermissionDeniedError } from '../../../core/resource/errors';
import { unscoped } from '../../../core/resource/query/rows';
import { visibleRows } from '../../../core/resource/query/scope';
import { ResourceService } from '../../../core/resource/resource.service';
import { notifyChanges } from '../../../core/resource/write/observe';
import type { Row } from '../../../database/db';
import { ident, join, sql } from '../../../database/sql';
import { DEFAULT_QUEUE, type ExecutionType } from './choices';
import { firstRunAt, JobQueue } from './job-queue';
import { JobRegistry } from './job-registry';
import { jobQueueResource } from './resources/job-queue.resource';
import { jobResultResource } from './resources/job-result.resource';
import { jobResource } from './resources/job.resource';
import { scheduledJobResource } from './resources/scheduled-job.resource';
import { storedBoolean } from '../../../core/resource/serialize/values';
import { ownData } from '../../../core/resource/serialize/own-representation';
import type { Executor } from '../../../database/db';

const ALLOW = 'POST, OPTIONS';
/** The reference answers these with DRF's MethodNotAllowed given the sentence as the method: its text is kept as sent. */
const notAllowed = (what: string) => new HttpResult(405, { detail: `Method "${what}" not allowed.` });
const parseJson = (v: unknown): Record<string, unknown> => (typeof v === 'string' ? JSON.parse(v) : ((v as Record<string, unknown>) ?? {}));

/**
 * Approval of scheduled jobs (the reference's ScheduledJobViewSet actions): a run of an
 * `approval_required` job is a scheduled job that is never due (`next_run_at` empty) until
 * another user approves it; `deny` deletes it; `dry-run` runs its job now with `dryrun` set.
 * Each needs the scheduled job permission the reference maps it to (change, delete, view), the
 * scheduled job within that scope (404), and the job within the requester's `approve` (approve,
 * deny) or `run` (dry-run) scope.
 */
@Controller('api/extras/scheduled-jobs/:id')
export class ApprovalsController {
  constructor(
    private readonly service: ResourceService,
    private readonly contexts: ContextFactory,
    private readonly jobs: JobRegistry,
    private readonly queue: JobQueue,
    private readonly events: EventBrokers,
  ) {}

  @Post('approve')
  @ApiOkResponse({ description: 'The approved scheduled job' })
  @Header('Allow', ALLOW)
  @ResourceRoute(scheduledJobResource, 'change')
  async approve(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    return ctx.db.transaction(async (tx) => {
      const scheduled = await this.service.findOne(ctx, tx, scheduledJobResource, String(req.params.id), 'change', true);
      if (!(await this.jobWithin(ctx, scheduled.job_model_id, 'approve'))) throw new PermissionDeniedError('You do not have permission to approve this request.');
      const approver = ctx.principal.user?.id ?? null;
      if (scheduled.user_id && String(scheduled.user_id) === approver) throw new HttpResult(403, 'You cannot approve your own job request!');
      const now = ctx.now();
      const start = new Date(scheduled.start_time as string);
      const force = typeof req.query.force === 'string' ? req.query.force !== '' : req.query.force !== undefined;
      if (storedBoolean(scheduled.one_off) && start.getTime() < now.getTime() && !force) {
        throw new HttpResult(400, "The job's start time is in the past. If you want to force a run anyway, add the `force` query parameter.");
      }
      // Due from now on: at its start (or at once, when that has passed), as the worker runs any schedule.
      const next = firstRunAt(scheduled.interval as ExecutionType, start, String(scheduled.crontab ?? ''), now);
      await tx.execute(
        sql`UPDATE ${unscoped(scheduledJobResource).table} SET ${join([
          sql`${ident('approved_by_user_id')} = ${approver}`,
          sql`${ident('approved_at')} = ${now}`,
          sql`${ident('next_run_at')} = ${next}`,
          sql`${ident('date_changed')} = ${now}`,
          sql`${ident('last_updated')} = ${now}`,
        ])} WHERE ${ident('id')} = ${String(scheduled.id)}`,
      );
      await notifyChanges(ctx, tx, scheduledJobResource, 'update', [{ id: String(scheduled.id), before: scheduled }]);
      await this.publish(ctx, tx, 'nautobot.jobs.approval.approved', String(scheduled.id));
      ctx.db.afterCommit(() => this.queue.onQueued());
      return new ApiResponse(200, (await this.service.readBack(ctx, tx, scheduledJobResource, [String(scheduled.id)]))[0]);
    });
  }

  @Post('deny')
  @ApiOkResponse({ description: 'Denied: the scheduled job is deleted' })
  @Header('Allow', ALLOW)
  @ResourceRoute(scheduledJobResource, 'delete')
  async deny(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    await ctx.db.transaction(async (tx) => {
      const scheduled = await this.service.findOne(ctx, tx, scheduledJobResource, String(req.params.id), 'delete', true);
      if (!(await this.jobWithin(ctx, scheduled.job_model_id, 'approve'))) throw new PermissionDeniedError('You do not have permission to deny this request.');
      await this.publish(ctx, tx, 'nautobot.jobs.approval.denied', String(scheduled.id));
      await this.service.destroy(ctx, scheduledJobResource, String(scheduled.id));
    });
    return new ApiResponse(200, null);
  }

  @Post('dry-run')
  @ApiOkResponse({ description: 'The dry run: its job result' })
  @Header('Allow', ALLOW)
  @ResourceRoute(scheduledJobResource, 'view')
  async dryRun(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const scheduled = await this.service.findOne(ctx, ctx.db, scheduledJobResource, String(req.params.id), 'view');
    // The job as it is stored, visible or not: whether it can run is the job's fact; the run permission is checked next.
    const [job] = scheduled.job_model_id ? await ctx.db.query(sql`SELECT * ${unscoped(jobResource).from(sql`${ident('id')} = ${String(scheduled.job_model_id)}`)}`) : [];
    const registered = job ? this.jobs.get(`${job.module_name}.${job.job_class_name}`) : undefined;
    if (!job || !storedBoolean(job.enabled) || !storedBoolean(job.installed) || !registered) throw notAllowed('This job cannot be dry-run at this time.');
    if (!storedBoolean(job.supports_dryrun)) throw notAllowed('This job does not support dry-run.');
    if (!(await this.jobWithin(ctx, job.id, 'run'))) throw new PermissionDeniedError('You do not have permission to run this job.');
    const queueName = String(parseJson(scheduled.celery_kwargs).queue ?? '') || DEFAULT_QUEUE;
    const out = await ctx.db.transaction(async (tx) => {
      const [queue] = await tx.query<{ id: string; name: string }>(
        sql`SELECT ${ident('id')}, ${ident('name')} ${unscoped(jobQueueResource).from(scheduled.job_queue_id ? sql`${ident('id')} = ${String(scheduled.job_queue_id)}` : sql`${ident('name')} = ${queueName}`)}`,
      );
      const data = { ...parseJson(scheduled.kwargs), dryrun: true };
      const [id] = await this.queue.enqueue(tx, [{ job: job as Row, userId: ctx.principal.user?.id ?? null, data, queue: queue ? { id: String(queue.id), name: queue.name } : { id: '', name: queueName } }]);
      return (await this.service.readBack(ctx, tx, jobResultResource, [id]))[0];
    });
    this.queue.onQueued();
    return new ApiResponse(200, out);
  }

  /**
   * An approval event (the reference's `{"data": serialize_object_v2(scheduled_job)}`): the
   * scheduled job as its change record holds it, as it is now (approved; about to be denied),
   * published once the transaction commits. Nothing is read when no broker takes the topic.
   */
  private async publish(ctx: RequestContext, tx: Executor, topic: string, id: string): Promise<void> {
    if (!this.events.admits(topic)) return;
    const data = (await ownData(ctx, tx, scheduledJobResource, [id])).get(id);
    if (data) this.events.publishAfterCommit(topic, { data });
  }

  /** Whether the job is within the requester's scope for an action on jobs (`approve`, `run`): the reference's Job.objects.check_perms. */
  private async jobWithin(ctx: RequestContext, jobId: unknown, action: string): Promise<boolean> {
    if (!jobId) return false;
    const rows = await visibleRows(ctx, ctx.db, jobResource, 'j', action as Action);
    return (await ctx.db.query(sql`SELECT 1 AS hit ${rows.from(sql`j.${ident('id')} = ${String(jobId)}`)}`)).length > 0;
  }
}

