import { JobHookListener } from './hook-listener';
import { ImportObjectsJob } from './builtin/import-objects.job';
import { PrefixUtilizationJob } from './builtin/prefix-utilization.job';
import { LogObjectChangeJob, LogObjectJob } from './builtin/receivers.job';
import { StaleObjectCleanupJob } from './builtin/stale-cleanup.job';
import { ChangeLogCleanupJob } from './builtin/changelog-cleanup.job';
import { JobQueue } from './job-queue';
import { JobRegistry } from './job-registry';
import { JobsController } from './jobs.controller';
import { ApprovalsController } from './approvals.controller';
import { jobButtonResource } from './resources/job-button.resource';
import { jobHookResource } from './resources/job-hook.resource';
import { jobLogEntryResource } from './resources/job-log-entry.resource';
import { jobQueueResource } from './resources/job-queue.resource';
import { jobQueueAssignmentResource } from './resources/job-queue-assignment.resource';
import { jobResultResource } from './resources/job-result.resource';
import { jobResource } from './resources/job.resource';
import { scheduledJobResource } from './resources/scheduled-job.resource';
import { JobWorker } from './worker';

/** The jobs part of the extras app: its models, endpoints, machinery and built-in jobs. */
export const jobResources = [jobQueueResource, jobResource, jobQueueAssignmentResource, jobResultResource, jobLogEntryResource, scheduledJobResource, jobButtonResource, jobHookResource];
export const jobControllers = [JobsController, ApprovalsController];
/** Netkeel's own jobs: one provider each (a new job is one more class here, or in any app's providers). */
export const builtinJobs = [ImportObjectsJob, PrefixUtilizationJob, StaleObjectCleanupJob, ChangeLogCleanupJob, LogObjectChangeJob, LogObjectJob];
export const jobProviders = [JobRegistry, JobQueue, JobWorker, JobHookListener, ...builtinJobs];
export { Job, JobFailed, JobRetry } from './job';
export type { JobRun, NetkeelJob, JobMeta } from './job';
export { vars } from './variables';
export { runJobHooks } from './hooks';
export type { ObjectChange } from './hooks';
