import { Inject, Injectable } from '@nestjs/common';
import type { Row } from '../../../database/db';
import { Db, Executor } from '../../../database/db';
import { CLOCK, Clock } from '../../../config/settings.module';
import type { ExecutionType } from './choices';
import { jobResultResource } from './resources/job-result.resource';
import { scheduledJobResource } from './resources/scheduled-job.resource';
import { insertRows } from './store';
import { nextCron, parseCrontab } from './schedule';

/** One run to queue: the job's record, who runs it, the validated data, on which queue. */
export interface RunRequest {
  job: Row;
  userId: string | null;
  data: Record<string, unknown>;
  queue: { id: string; name: string };
  scheduledJobId?: string | null;
}

export interface ScheduleRequest extends RunRequest {
  name: string;
  interval: ExecutionType;
  startTime: Date | null;
  crontab: string;
  approvalRequired: boolean;
}

/** The channel on which instances wake each other's workers (PostgreSQL). */
export const JOBS_CHANNEL = 'netkeel_jobs';

const classPathOf = (job: Row) => `${job.module_name}.${job.job_class_name}`;

/** When a schedule first runs: its start, or for a crontab the first match from its start (or now, if later). */
export function firstRunAt(interval: ExecutionType, start: Date, crontab: string, now: Date): Date | null {
  return interval === 'custom' ? nextCron(parseCrontab(crontab)!, new Date(Math.max(start.getTime(), now.getTime()) - 60_000)) : start;
}

/**
 * The job queue kept in the database: a run is a job result in PENDING, which any instance's
 * worker claims (worker.ts); a schedule is a scheduled job whose `next_run_at` the worker
 * watches. Used by the run endpoint, the worker (due schedules) and job hooks.
 */
@Injectable()
export class JobQueue {
  /** This process's worker, which looks at the queue when called (set by the worker, if this process runs one). */
  wake: () => void = () => undefined;

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly db: Db,
  ) {}

  /**
   * To be told when something was queued, in a transaction or not: once it commits, this
   * process's worker looks, and on PostgreSQL every other instance's worker is woken too
   * (elsewhere they find it when they next poll).
   */
  onQueued(): void {
    this.db.afterCommit(() => {
      this.wake();
      this.db.feed.signal(JOBS_CHANNEL);
    });
  }

  /** Queues runs in one statement; returns the job results' ids. */
  async enqueue(exec: Executor, runs: RunRequest[]): Promise<string[]> {
    const now = this.clock();
    return insertRows(
      exec,
      jobResultResource,
      runs.map((r) => ({
        job_model_id: r.job.id,
        name: r.job.name,
        task_name: classPathOf(r.job),
        date_created: now,
        user_id: r.userId,
        status: 'PENDING',
        result: null,
        task_args: [],
        task_kwargs: r.data,
        celery_kwargs: { nautobot_job_job_model_id: r.job.id, nautobot_job_user_id: r.userId, queue: r.queue.name },
        scheduled_job_id: r.scheduledJobId ?? null,
      })),
      now,
    );
  }

  async schedule(exec: Executor, s: ScheduleRequest): Promise<string> {
    const now = this.clock();
    const start = s.startTime ?? now;
    const first = firstRunAt(s.interval, start, s.crontab, now);
    const [id] = await insertRows(
      exec,
      scheduledJobResource,
      [
        {
          name: s.name,
          task: classPathOf(s.job),
          job_model_id: s.job.id,
          interval: s.interval,
          args: [],
          kwargs: s.data,
          celery_kwargs: { queue: s.queue.name },
          job_queue_id: s.queue.id,
          one_off: s.interval === 'future' || s.interval === 'immediately',
          start_time: start,
          enabled: true,
          total_run_count: 0,
          date_changed: now,
          user_id: s.userId,
          approval_required: s.approvalRequired,
          crontab: s.crontab,
          time_zone: 'UTC',
          // One awaiting approval is never due until approved (approvals.controller.ts sets it then).
          next_run_at: s.approvalRequired ? null : first,
        },
      ],
      now,
    );
    return id;
  }
}
