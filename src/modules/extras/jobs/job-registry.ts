import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { Db, Executor } from '../../../database/db';
import { ident, inList, join, sql } from '../../../database/sql';
import { unscoped } from '../../../core/resource/query/rows';
import { perRow } from '../../../core/resource/write/save';
import { DEFAULT_QUEUE } from './choices';
import { classPath, JOB_META, JobMeta, NetkeelJob } from './job';
import { jobQueueResource } from './resources/job-queue.resource';
import { jobQueueAssignmentResource } from './resources/job-queue-assignment.resource';
import { jobResource, OVERRIDABLE } from './resources/job.resource';
import { insertRows } from './store';

export interface RegisteredJob {
  meta: JobMeta;
  instance: NetkeelJob;
}

/** The job record's values a class declares, by column (the overridable ones may be overridden). */
function declared(m: JobMeta): Record<(typeof OVERRIDABLE)[number], unknown> {
  return {
    grouping: m.grouping,
    name: m.name,
    description: m.description ?? '',
    approval_required: !!m.approvalRequired,
    dryrun_default: !!m.dryrunDefault,
    hidden: !!m.hidden,
    soft_time_limit: m.softTimeLimit ?? 0,
    time_limit: m.timeLimit ?? 0,
    has_sensitive_variables: m.hasSensitiveVariables ?? true,
    is_singleton: !!m.isSingleton,
  };
}

const fixed = (m: JobMeta) => ({
  installed: true,
  is_job_hook_receiver: m.receiver === 'hook',
  is_job_button_receiver: m.receiver === 'button',
  read_only: !!m.readOnly,
  supports_dryrun: !!m.variables?.dryrun,
});

/**
 * The job classes of this process: every provider of any module marked with `@Job(...)`, found
 * at start. Their `extras.job` records are made (new ones disabled, except netkeel's own, as the
 * reference enables its system jobs) or refreshed (what is not overridden; installed again), and
 * records whose class is gone are marked not installed. `ready` settles once that is done.
 */
@Injectable()
export class JobRegistry implements OnApplicationBootstrap {
  private readonly logger = new Logger('Jobs');
  private readonly byPath = new Map<string, RegisteredJob>();
  private done!: () => void;
  readonly ready = new Promise<void>((resolve) => (this.done = resolve));

  constructor(
    private readonly modules: ModulesContainer,
    private readonly db: Db,
  ) {}

  get(path: string): RegisteredJob | undefined {
    return this.byPath.get(path);
  }

  all(): RegisteredJob[] {
    return [...this.byPath.values()];
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const mod of this.modules.values()) {
      for (const wrapper of mod.providers.values()) {
        const type = wrapper.metatype as unknown;
        if (typeof type !== 'function' || !wrapper.instance) continue;
        const meta = Reflect.getMetadata(JOB_META, type) as JobMeta | undefined;
        if (meta && !this.byPath.has(classPath(meta))) this.byPath.set(classPath(meta), { meta, instance: wrapper.instance as NetkeelJob });
      }
    }
    try {
      // Instances starting together race to make the same records: the loser runs again and finds them.
      await this.db.retryingTransaction((tx) => this.sync(tx));
    } finally {
      this.done();
    }
  }

  private async sync(tx: Executor): Promise<void> {
    const now = new Date();
    const jobs = this.all().map((j) => j.meta);
    const queueNames = [...new Set([DEFAULT_QUEUE, ...jobs.flatMap((m) => m.queues ?? [])])];
    const queues = new Map((await tx.query<{ id: string; name: string }>(sql`SELECT ${ident('id')}, ${ident('name')} FROM ${unscoped(jobQueueResource).table} WHERE ${inList(ident('name'), queueNames)}`)).map((q) => [q.name, String(q.id)]));
    const missing = queueNames.filter((n) => !queues.has(n));
    const made = await insertRows(tx, jobQueueResource, missing.map((name) => ({ name, queue_type: 'celery' })), now);
    missing.forEach((n, i) => queues.set(n, made[i]));

    const rows = await tx.query(sql`SELECT * FROM ${unscoped(jobResource).table}`);
    const existing = new Map(rows.map((r) => [`${r.module_name}.${r.job_class_name}`, r]));
    const fresh = jobs.filter((m) => !existing.has(classPath(m)));
    const freshIds = await insertRows(
      tx,
      jobResource,
      fresh.map((m) => ({
        module_name: m.module,
        job_class_name: m.className,
        ...declared(m),
        ...fixed(m),
        enabled: m.module.startsWith('netkeel.'),
        default_job_queue_id: queues.get(m.queues?.[0] ?? DEFAULT_QUEUE),
      })),
      now,
    );
    // Refresh what each class declares and nobody overrode: one UPDATE for all of them.
    const refreshed = jobs.filter((m) => existing.has(classPath(m)));
    const d = tx.dialect;
    if (refreshed.length) {
      const assignments = [];
      const types: Record<string, 'string' | 'text' | 'boolean' | 'decimal'> = { grouping: 'string', name: 'string', description: 'text', soft_time_limit: 'decimal', time_limit: 'decimal' };
      for (const col of OVERRIDABLE) {
        assignments.push(perRow(d, col, types[col] ?? 'boolean', refreshed.map((m) => { const r = existing.get(classPath(m))!; return [String(r.id), r[`${col}_override`] ? r[col] : declared(m)[col]]; })));
      }
      for (const [col, value] of Object.entries(fixed(refreshed[0]))) {
        assignments.push(perRow(d, col, 'boolean', refreshed.map((m) => [String(existing.get(classPath(m))!.id), (fixed(m) as Record<string, unknown>)[col] ?? value])));
      }
      await tx.execute(sql`UPDATE ${unscoped(jobResource).table} SET ${join(assignments)}, ${ident('last_updated')} = ${now} WHERE ${inList(ident('id'), refreshed.map((m) => String(existing.get(classPath(m))!.id)))}`);
    }
    const present = new Set(jobs.map(classPath));
    const gone = rows.filter((r) => r.installed && !present.has(`${r.module_name}.${r.job_class_name}`)).map((r) => String(r.id));
    if (gone.length) await tx.execute(sql`UPDATE ${unscoped(jobResource).table} SET ${ident('installed')} = ${false} WHERE ${inList(ident('id'), gone)}`);

    // Queues of the jobs whose queues nobody overrode: the ones their code names.
    const own = [...fresh.map((m, i) => [m, freshIds[i]] as const), ...refreshed.filter((m) => !existing.get(classPath(m))!.job_queues_override).map((m) => [m, String(existing.get(classPath(m))!.id)] as const)];
    if (own.length) {
      await tx.execute(sql`DELETE FROM ${unscoped(jobQueueAssignmentResource).table} WHERE ${inList(ident('job_id'), own.map(([, id]) => id))}`);
      const links = own.flatMap(([m, id]) => (m.queues?.length ? m.queues : [DEFAULT_QUEUE]).map((q) => ({ job_id: id, job_queue_id: queues.get(q) })));
      await insertRows(tx, jobQueueAssignmentResource, links, now);
    }
    if (fresh.length || gone.length) this.logger.log(`${fresh.length} job(s) registered, ${gone.length} no longer installed`);
  }
}
