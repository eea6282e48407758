import { ident, inList, sql } from '../../../../database/sql';
import { unscoped } from '../../../../core/resource/query/rows';
import { visibleRows } from '../../../../core/resource/query/scope';
import { Job, JobRun, NetkeelJob } from '../job';
import { vars } from '../variables';

/**
 * Removes what has outlived its use: expired API tokens and job results older than the given
 * number of days (each only where the user may delete it; their logs go with them), and, for
 * superusers, expired browser sessions. Everything else is left alone. A dry run counts what
 * it would delete and deletes nothing (so it may run without approval where approval is required).
 */
@Job({
  module: 'netkeel.jobs.cleanup',
  className: 'StaleObjectCleanup',
  name: 'Stale Object Cleanup',
  grouping: 'System Jobs',
  description: 'Deletes expired API tokens, expired browser sessions (superusers only) and job results older than the given number of days.',
  hasSensitiveVariables: false,
  variables: {
    job_result_days: vars.integer({ min_value: 0, default: 90, label: 'Job results older than (days)', description: '0 keeps every job result' }),
    dryrun: vars.boolean({ default: false, label: 'Dry run', description: 'Count what would be deleted; delete nothing' }),
  },
})
export class StaleObjectCleanupJob implements NetkeelJob {
  async run(run: JobRun, data: { job_result_days: number; dryrun?: boolean }) {
    const { ctx } = run;
    const now = ctx.now();
    const remove = async (type: string, cond: (alias: string) => ReturnType<typeof sql>, label: string) => {
      const def = ctx.registry.get(type);
      if (!def) return 0;
      const rows = await visibleRows(ctx, ctx.db, def, 'o', 'delete');
      const ids = (await ctx.db.query<{ id: string }>(sql`SELECT o.${ident('id')} ${rows.from(cond('o'))}`)).map((r) => String(r.id));
      if (data.dryrun) {
        run.info(`Would delete ${ids.length} ${label}.`);
        return ids.length;
      }
      if (ids.length) await ctx.db.execute(sql`DELETE FROM ${unscoped(def).table} WHERE ${inList(ident('id'), ids)}`);
      run.info(`Deleted ${ids.length} ${label}.`);
      return ids.length;
    };
    const tokens = await remove('users.token', (a) => sql`${ident(a, 'expires')} < ${now}`, 'expired API tokens');
    let results = 0;
    if (data.job_result_days > 0) {
      const before = new Date(now.getTime() - data.job_result_days * 86_400_000);
      results = await remove('extras.jobresult', (a) => sql`${ident(a, 'date_created')} < ${before} AND ${ident(a, 'id')} <> ${run.resultId}`, `job results older than ${data.job_result_days} days`);
    }
    let sessions = 0;
    if (data.dryrun) run.info('Dry run: nothing was deleted.');
    else if (ctx.principal.user?.is_superuser) {
      sessions = await ctx.db.execute(sql`DELETE FROM ${ident('users_session')} WHERE ${ident('expires')} < ${now}`);
      run.info(`Deleted ${sessions} expired sessions.`);
    } else run.warning('Expired sessions are only removed when a superuser runs this job.');
    return { tokens, job_results: results, sessions };
  }
}
