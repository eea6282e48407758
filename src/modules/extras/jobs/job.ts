import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';
import type { RequestContext } from '../../../core/context';
import type { LogLevel } from './choices';
import type { JobVariable } from './variables';

export const JOB_META = 'netkeel:job';

/** What a job class declares (the reference's Job.Meta and its variables). */
export interface JobMeta {
  /** module_name: dotted, e.g. `netkeel.jobs.imports` (a plugin: its package name). */
  module: string;
  /** job_class_name. */
  className: string;
  name: string;
  grouping: string;
  description?: string;
  variables?: Record<string, JobVariable>;
  /** Default true, as the reference: such a job cannot be scheduled, only run now. */
  hasSensitiveVariables?: boolean;
  approvalRequired?: boolean;
  hidden?: boolean;
  /** Queued by netkeel itself only (webhook deliveries): the run endpoint refuses it. */
  system?: boolean;
  dryrunDefault?: boolean;
  readOnly?: boolean;
  isSingleton?: boolean;
  softTimeLimit?: number;
  /** Seconds (the job record's `time_limit`, which administrators may override); a run that took longer fails and is rolled back (0: no limit). */
  timeLimit?: number;
  /** A job hook receiver (run by job hooks with the changed object) or a job button receiver. */
  receiver?: 'hook' | 'button';
  /** Names of the queues it may run on (default: the `default` queue). */
  queues?: string[];
}

/** One line of a job's log; `object`: the object it is about ({display, url}). */
export interface JobLogLine {
  level: LogLevel;
  message: string;
  grouping?: string;
  object?: { display?: string; url?: string } | null;
}

/** What a running job has at hand. */
export interface JobRun {
  /** Acts as the user who ran it (their permissions), inside the run's own transaction. */
  readonly ctx: RequestContext;
  readonly resultId: string;
  readonly jobName: string;
  /** Which run of this result this is: 1, then 2... after each JobRetry. */
  readonly attempt: number;
  log(level: LogLevel, message: string, object?: JobLogLine['object'], grouping?: string): void;
  debug(message: string, object?: JobLogLine['object']): void;
  info(message: string, object?: JobLogLine['object']): void;
  success(message: string, object?: JobLogLine['object']): void;
  warning(message: string, object?: JobLogLine['object']): void;
  failure(message: string, object?: JobLogLine['object']): void;
}

/** A job's code: `run` gets the validated data (objects as ids) and returns the result (JSON). */
export interface NetkeelJob {
  run(run: JobRun, data: Record<string, any>): Promise<unknown>;
}

/**
 * Declares a job: an ordinary Nest provider that an app lists in its `providers`. At start the
 * job registry finds every provider so marked, and keeps one `extras.job` record per class.
 */
export const Job = (meta: JobMeta) => applyDecorators(Injectable(), SetMetadata(JOB_META, meta));

export const classPath = (m: Pick<JobMeta, 'module' | 'className'>) => `${m.module}.${m.className}`;

/**
 * A job run that ended on purpose with a failure (the reference's `self.fail()` then return):
 * recorded as FAILURE with the message, without a traceback.
 */
export class JobFailed extends Error {}

/**
 * A run that failed in a way that may pass later (a receiver that is down): its transaction is
 * rolled back, its result shows RETRY with this run's log, and it runs again after `delayMs`.
 */
export class JobRetry extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}
