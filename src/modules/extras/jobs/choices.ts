import type { Choices } from '../../../core/resource/fields';

/** How a run is timed (the reference's JobExecutionType). */
export const EXECUTION_TYPES = [
  ['immediately', 'Once immediately'],
  ['future', 'Once in the future'],
  ['hourly', 'Recurring hourly'],
  ['daily', 'Recurring daily'],
  ['weekly', 'Recurring weekly'],
  ['custom', 'Recurring custom'],
] as const satisfies Choices;
export type ExecutionType = (typeof EXECUTION_TYPES)[number][0];
/** The intervals that make a scheduled job rather than a run now. */
export const SCHEDULE_TYPES: readonly ExecutionType[] = ['future', 'hourly', 'daily', 'weekly', 'custom'];

/** A job result's state (the reference's: Celery's task states, sorted). */
export const RESULT_STATUSES = ['FAILURE', 'IGNORED', 'PENDING', 'RECEIVED', 'REJECTED', 'RETRY', 'REVOKED', 'STARTED', 'SUCCESS'].map((s) => [s, s] as const) satisfies Choices;
export type ResultStatus = 'FAILURE' | 'PENDING' | 'STARTED' | 'SUCCESS' | 'REVOKED';

export const LOG_LEVELS = [
  ['debug', 'Debug'],
  ['info', 'Info'],
  ['success', 'Success'],
  ['warning', 'Warning'],
  ['failure', 'Failure'],
  ['error', 'Error'],
  ['critical', 'Critical'],
] as const satisfies Choices;
export type LogLevel = (typeof LOG_LEVELS)[number][0];

export const QUEUE_TYPES = [
  ['celery', 'Celery'],
  ['kubernetes', 'Kubernetes'],
] as const satisfies Choices;

export const BUTTON_CLASSES = [
  ['default', 'Default'],
  ['primary', 'Primary (blue)'],
  ['success', 'Success (green)'],
  ['info', 'Info (aqua)'],
  ['warning', 'Warning (orange)'],
  ['danger', 'Danger (red)'],
  ['link', 'None (link)'],
] as const satisfies Choices;

/** The queue every job may run on unless it says otherwise (the reference's CELERY_TASK_DEFAULT_QUEUE). */
export const DEFAULT_QUEUE = 'default';
/** The reference's limits of a job's name, class and module. */
export const JOB_MAX_NAME_LENGTH = 100;
