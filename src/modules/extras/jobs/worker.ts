import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { hostname } from 'node:os';
import { Db, Row } from '../../../database/db';
import { ident, inList, join, raw, sql } from '../../../database/sql';
import { CLOCK, Clock, SETTINGS } from '../../../config/settings.module';
import type { Settings } from '../../../config/settings';
import { loadJobFiles } from '../attachments/job-files';
import { PermissionService } from '../../../core/auth/permission.service';
import { EventBrokers } from '../../../core/events/event-brokers';
import { storedBoolean } from '../../../core/resource/serialize/values';
import { RequestContext } from '../../../core/context';
import { DEFAULT_VERSION } from '../../../core/http/versioning';
import { unscoped } from '../../../core/resource/query/rows';
import { ResourceRegistry } from '../../../core/resource/registry';
import { perRow } from '../../../core/resource/write/save';
import { userResource } from '../../users/resources/user.resource';
import type { ExecutionType, LogLevel } from './choices';
import { classPath, JobFailed, JobLogLine, JobRetry, JobRun } from './job';
import { JOBS_CHANNEL, JobQueue } from './job-queue';
import { JobRegistry } from './job-registry';
import { jobLogEntryResource } from './resources/job-log-entry.resource';
import { jobResultResource } from './resources/job-result.resource';
import { jobQueueResource } from './resources/job-queue.resource';
import { jobResource } from './resources/job.resource';
import { scheduledJobResource } from './resources/scheduled-job.resource';
import { nextRun } from './schedule';
import { insertRows } from './store';

/** Results that wait to run: queued ones, and retries whose time has come. */
const waiting = (now: Date, alias?: string) => {
  const c = (name: string) => (alias ? ident(alias, name) : ident(name));
  return sql`(${c('status')} = ${'PENDING'} OR (${c('status')} = ${'RETRY'} AND ${c('_run_after')} <= ${now}))`;
};

const STARTED = 'nautobot.jobs.job.started';
const COMPLETED = 'nautobot.jobs.job.completed';

/** What a failure says: a domain error's field errors, or the message. */
function describe(e: unknown): string {
  const errors = (e as { errors?: unknown })?.errors;
  if (errors) return JSON.stringify(errors);
  return e instanceof Error ? e.message : String(e);
}

/**
 * The job worker of this process (JOBS_WORKER): every JOBS_POLL_INTERVAL_MS, and at once when
 * this process queues something (or, on PostgreSQL, another instance signals it did), it moves
 * due schedules into the queue and claims up to JOBS_CONCURRENCY pending results (`FOR UPDATE
 * SKIP LOCKED`: instances on one PostgreSQL or MariaDB never claim the same run; PGlite has one
 * process). Each run executes in a transaction
 * of its own, as the user who queued it; its log lines are written with its result afterwards,
 * so a run that fails keeps them. A failure is the run's FAILURE with the error and traceback,
 * never the process's. Shutdown stops polling and waits for the runs in progress.
 */
@Injectable()
export class JobWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('JobWorker');
  private readonly name = `${hostname()}:${process.pid}`;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private polling: Promise<void> | null = null;
  private again = false;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly jobs: JobRegistry,
    private readonly queue: JobQueue,
    private readonly registry: ResourceRegistry,
    private readonly permissions: PermissionService,
    private readonly events: EventBrokers,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.settings.JOBS_WORKER) return;
    // Queued here (once it commits, outside the transaction: the worker's statements must not join it) or by another instance.
    this.queue.wake = () => this.kick();
    this.db.feed.onSignal(JOBS_CHANNEL, () => this.kick());
    await this.jobs.ready;
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.polling;
    await Promise.allSettled([...this.running]);
  }

  /** Look now (something was queued). */
  kick(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.polling = this.poll().finally(() => {
      this.polling = null;
      if (this.again) {
        this.again = false;
        this.kick();
      } else this.schedule();
    });
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.kick();
    }, this.settings.JOBS_POLL_INTERVAL_MS);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    this.db.feed.keepListening();
    try {
      if (!(await this.anythingWaiting())) return;
      await this.enqueueDue();
      const free = this.settings.JOBS_CONCURRENCY - this.running.size;
      if (free <= 0) return;
      for (const row of await this.claim(free)) {
        const p: Promise<void> = this.execute(row).finally(() => {
          this.running.delete(p);
          this.kick();
        });
        this.running.add(p);
      }
    } catch (e) {
      if (!this.stopped) this.logger.error(`job queue: ${describe(e)}`);
    }
  }

  /**
   * Whether a result waits or a schedule is due: one read, straight on the pool rather than
   * through Db, so an idle worker's polls are not counted among the statements of the requests
   * they happen to run beside (statement-count tests, X-Statement-Count); it writes nothing.
   */
  private async anythingWaiting(): Promise<boolean> {
    const { text, params } = this.db.dialect.render(
      sql`SELECT CASE WHEN EXISTS (SELECT 1 FROM ${unscoped(jobResultResource).table} WHERE ${waiting(this.clock())})
                   OR EXISTS (SELECT 1 FROM ${unscoped(scheduledJobResource).table} WHERE ${ident('enabled')} = ${true} AND ${ident('next_run_at')} <= ${this.clock()})
                 THEN 1 ELSE 0 END AS ${ident('waiting')}`,
    );
    const rows = (await this.db.dataSource.query(text, params)) as { waiting: unknown }[];
    return Number(rows[0]?.waiting) === 1;
  }

  /** Schedules whose time has come become pending results; recurring ones move on, one-offs end. */
  private async enqueueDue(): Promise<void> {
    const now = this.clock();
    await this.db.transaction(async (tx) => {
      const due = await tx.query(
        sql`SELECT * FROM ${unscoped(scheduledJobResource).table} WHERE ${ident('enabled')} = ${true} AND ${ident('next_run_at')} <= ${now}
            ORDER BY ${ident('next_run_at')} LIMIT 20 FOR UPDATE SKIP LOCKED`,
      );
      if (!due.length) return;
      const jobIds = [...new Set(due.map((s) => String(s.job_model_id)))];
      const jobs = new Map((await tx.query(sql`SELECT ${ident('id')}, ${ident('name')}, ${ident('module_name')}, ${ident('job_class_name')} FROM ${unscoped(jobResource).table} WHERE ${inList(ident('id'), jobIds)}`)).map((j) => [String(j.id), j]));
      const queueIds = [...new Set(due.map((s) => s.job_queue_id).filter(Boolean).map(String))];
      const queues = new Map(queueIds.length ? (await tx.query(sql`SELECT ${ident('id')}, ${ident('name')} FROM ${unscoped(jobQueueResource).table} WHERE ${inList(ident('id'), queueIds)}`)).map((q) => [String(q.id), String(q.name)]) : []);
      await this.queue.enqueue(
        tx,
        due.map((s) => ({
          job: jobs.get(String(s.job_model_id)) ?? { id: s.job_model_id, name: s.name, module_name: '', job_class_name: s.task },
          userId: s.user_id,
          data: typeof s.kwargs === 'string' ? JSON.parse(s.kwargs) : s.kwargs ?? {},
          queue: { id: s.job_queue_id, name: queues.get(String(s.job_queue_id)) ?? 'default' },
          scheduledJobId: s.id,
        })),
      );
      const next = due.map((s) => [String(s.id), nextRun(s.interval as ExecutionType, s.crontab, new Date(s.next_run_at), now)] as const);
      const d = tx.dialect;
      await tx.execute(
        sql`UPDATE ${unscoped(scheduledJobResource).table} SET ${join([
          perRow(d, 'next_run_at', 'datetime', next.map(([id, at]) => [id, at])),
          perRow(d, 'enabled', 'boolean', next.map(([id, at]) => [id, at !== null])),
          sql`${ident('last_run_at')} = ${now}`,
          sql`${ident('total_run_count')} = ${ident('total_run_count')} + 1`,
        ])} WHERE ${inList(ident('id'), next.map(([id]) => id))}`,
      );
    });
  }

  /** Takes up to `n` pending results, oldest first, that no other worker holds. */
  private async claim(n: number): Promise<Row[]> {
    const now = this.clock();
    return this.db.transaction(async (tx) => {
      const rows = await tx.query(
        sql`SELECT r.*, ${unscoped(jobResource, 'j').select('has_sensitive_variables', sql`j.${ident('id')} = r.${ident('job_model_id')}`)} AS ${ident('sensitive')},
                   ${unscoped(jobResource, 'j').select('time_limit', sql`j.${ident('id')} = r.${ident('job_model_id')}`)} AS ${ident('job_time_limit')}
            FROM ${unscoped(jobResultResource, 'r').table} WHERE ${waiting(now, 'r')} ORDER BY r.${ident('date_created')} LIMIT ${raw(String(n))} FOR UPDATE SKIP LOCKED`,
      );
      if (!rows.length) return [];
      await tx.execute(
        sql`UPDATE ${unscoped(jobResultResource).table} SET ${ident('status')} = ${'STARTED'}, ${ident('date_started')} = ${now}, ${ident('worker')} = ${this.name} WHERE ${inList(ident('id'), rows.map((r) => String(r.id)))}`,
      );
      return rows;
    });
  }

  /** The context a run acts in: its user's permissions (the system's for a run nobody asked for). */
  private async contextFor(userId: string | null): Promise<RequestContext> {
    let user = null;
    if (userId) {
      const [u] = await this.db.query(sql`SELECT ${ident('id')}, ${ident('username')}, ${ident('is_active')}, ${ident('is_superuser')} FROM ${unscoped(userResource).table} WHERE ${ident('id')} = ${userId}`);
      if (!u || !u.is_active) throw new JobFailed('The user who queued this job no longer exists or is inactive.');
      user = { id: String(u.id), username: u.username, is_active: !!u.is_active, is_superuser: !!u.is_superuser, statusCheckAfter: null };
    }
    const permissions = user ? this.permissions : { constraints: async () => null };
    const base = `http://localhost:${this.settings.PORT}${this.settings.BASE_PATH}`;
    return new RequestContext(this.db, this.settings, this.registry, permissions, { user, via: null, writeEnabled: true }, DEFAULT_VERSION, base, this.clock);
  }

  private async execute(row: Row): Promise<void> {
    const lines: JobLogLine[] = [];
    let status: 'SUCCESS' | 'FAILURE' | 'RETRY' = 'SUCCESS';
    let retryAfter: Date | null = null;
    let result: unknown = null;
    let traceback: string | null = null;
    let event: Record<string, unknown> | null = null;
    const registered = this.jobs.get(String(row.task_name));
    try {
      if (!registered) throw new JobFailed(`Job ${row.task_name} is not installed.`);
      const ctx = await this.contextFor(row.user_id ? String(row.user_id) : null);
      // What the run writes is recorded as the reference's job changes are: `job` (`job-hook` for a hook's receiver) and the class path.
      ctx.changeContext = { context: registered.meta.receiver === 'hook' ? 'job-hook' : 'job', detail: classPath(registered.meta) };
      const log = (level: LogLevel, message: string, object?: JobLogLine['object'], grouping?: string) => void lines.push({ level, message, object, grouping });
      const run: JobRun = {
        ctx,
        resultId: String(row.id),
        jobName: String(row.name),
        attempt: Number(row._attempts ?? 0) + 1,
        log,
        debug: (m, o) => log('debug', m, o),
        info: (m, o) => log('info', m, o),
        success: (m, o) => log('success', m, o),
        warning: (m, o) => log('warning', m, o),
        failure: (m, o) => log('failure', m, o),
      };
      const data = typeof row.task_kwargs === 'string' ? JSON.parse(row.task_kwargs) : row.task_kwargs ?? {};
      event = this.started(row, registered.meta.name, ctx, data);
      // A run past its time limit fails and its transaction is rolled back: nothing of it is kept
      // (a run cannot be interrupted midway; it is judged when it returns).
      const limit = Number(row.job_time_limit ?? 0) * 1000;
      const started = performance.now();
      result =
        (await this.db.transaction(async () => {
          const value = await registered.instance.run(run, await loadJobFiles(this.db, registered.meta.variables ?? {}, data));
          if (limit > 0 && performance.now() - started > limit) throw new JobFailed(`Job exceeded its time limit of ${limit / 1000} seconds.`);
          return value;
        })) ?? null;
    } catch (e) {
      if (event) event.einfo = { exc_type: e instanceof Error ? e.constructor.name : typeof e, exc_message: describe(e) };
      if (e instanceof JobRetry) {
        status = 'RETRY';
        retryAfter = new Date(this.clock().getTime() + e.delayMs);
        lines.push({ level: 'warning', message: e.message });
        await this.finish(row, status, null, null, lines, retryAfter).catch((err) => this.logger.error(`job result ${row.id}: ${describe(err)}`));
        this.completed(event, null);
        return;
      }
      status = 'FAILURE';
      lines.push({ level: e instanceof JobFailed ? 'failure' : 'error', message: describe(e) });
      if (!(e instanceof JobFailed)) traceback = e instanceof Error ? e.stack ?? String(e) : String(e);
    }
    await this.finish(row, status, result, traceback, lines).catch((e) => this.logger.error(`job result ${row.id}: ${describe(e)}`));
    this.completed(event, result);
  }

  /**
   * `nautobot.jobs.job.started` (the reference's run_job): the result, the job's name, who ran
   * it and, unless the job may have sensitive variables, its data. Returns the payload the
   * completed event builds on; null when no broker takes either topic.
   */
  private started(row: Row, jobName: string, ctx: RequestContext, data: Record<string, unknown>): Record<string, unknown> | null {
    if (!this.events.admits(STARTED) && !this.events.admits(COMPLETED)) return null;
    const event: Record<string, unknown> = { job_result_id: String(row.id), job_name: jobName, user_name: ctx.principal.user?.username ?? null };
    if (!storedBoolean(row.sensitive)) event.job_kwargs = data;
    this.events.publish(STARTED, event);
    return event;
  }

  /** `nautobot.jobs.job.completed`, once the result is stored: the started payload, what the run returned and the failure (null without one). */
  private completed(event: Record<string, unknown> | null, output: unknown): void {
    if (!event) return;
    const { einfo = null, ...started } = event;
    this.events.publish(COMPLETED, { ...started, job_output: einfo ? null : output, einfo });
  }

  private async finish(row: Row, status: string, result: unknown, traceback: string | null, lines: JobLogLine[], retryAfter: Date | null = null): Promise<void> {
    const now = this.clock();
    await this.db.transaction(async (tx) => {
      await insertRows(
        tx,
        jobLogEntryResource,
        lines.map((l, i) => ({
          job_result_id: row.id,
          log_level: l.level,
          grouping: (l.grouping ?? 'main').slice(0, 100),
          message: l.message,
          log_object: (l.object?.display ?? '').slice(0, 200),
          absolute_url: (l.object?.url ?? '').slice(0, 255),
          // Lines of one run keep their order: created is the ordering.
          created: new Date(now.getTime() - (lines.length - i)),
        })),
        now,
      );
      const d = tx.dialect;
      await tx.execute(
        sql`UPDATE ${unscoped(jobResultResource).table} SET ${ident('status')} = ${status}, ${ident('date_done')} = ${retryAfter ? null : now}, ${ident('_run_after')} = ${retryAfter},
          ${ident('_attempts')} = ${Number(row._attempts ?? 0) + 1}, ${ident('result')} = ${d.toDb(result, 'json')}, ${ident('traceback')} = ${traceback}, ${ident('last_updated')} = ${now}${
          // What a job that may have sensitive variables was given is not kept once it has run.
          row.sensitive && !retryAfter ? sql`, ${ident('task_kwargs')} = ${d.toDb({}, 'json')}` : sql``
        } WHERE ${ident('id')} = ${String(row.id)}`,
      );
    });
  }
}
