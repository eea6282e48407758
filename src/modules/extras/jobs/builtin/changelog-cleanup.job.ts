import { cleanupChangeLog } from '../../change-log/cleanup';
import { Job, JobFailed, JobRun, NetkeelJob } from '../job';
import { vars } from '../variables';

/**
 * Deletes change records older than the retention (CHANGELOG_RETENTION days by default; 0 keeps
 * them all), in batches. Change records are every object's history, whoever may view the objects,
 * so only a superuser may run it; schedule it (daily) to keep the log to its retention.
 */
@Job({
  module: 'netkeel.jobs.cleanup',
  className: 'ChangeLogCleanup',
  name: 'Change Log Cleanup',
  grouping: 'System Jobs',
  description: 'Deletes change log records older than the retention (CHANGELOG_RETENTION days unless given).',
  hasSensitiveVariables: false,
  variables: {
    max_age: vars.integer({ min_value: 0, required: false, label: 'Older than (days)', description: 'Blank: CHANGELOG_RETENTION; 0 keeps every record' }),
  },
})
export class ChangeLogCleanupJob implements NetkeelJob {
  async run(run: JobRun, data: { max_age?: number | null }) {
    if (!run.ctx.principal.user?.is_superuser) throw new JobFailed('Only a superuser may clean up the change log.');
    const days = data.max_age === null || data.max_age === undefined ? run.ctx.settings.CHANGELOG_RETENTION : data.max_age;
    if (!(days > 0)) {
      run.info('The retention is 0 days: every change record is kept.');
      return { deleted: 0 };
    }
    const deleted = await cleanupChangeLog(run.ctx.db, days, run.ctx.now());
    run.success(`Deleted ${deleted} change records older than ${days} days.`);
    return { deleted, days };
  }
}
