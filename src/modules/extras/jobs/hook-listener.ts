import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { SETTINGS } from '../../../config/settings.module';
import type { Settings } from '../../../config/settings';
import { ResourceRegistry } from '../../../core/resource/registry';
import { Db } from '../../../database/db';
import type { WatchedCache } from '../../../database/watched-cache';
import { onChanges } from '../change-log/listeners';
import { loadJobHooks, runJobHooks, type JobHookRow } from './hooks';
import { JobQueue } from './job-queue';
import { definitionCache } from '../../../core/resource/definition-cache';

/**
 * Runs job hooks on object changes: hears each batch of change records inside the write's
 * transaction and queues the runs of the matching hooks as the user who made the change. A rolled
 * back write queues nothing. The enabled hooks are kept in a `WatchedCache` of the hook, job and
 * queue tables (as custom field definitions are), so a write costs no statement for them while no
 * hook matches its type.
 */
@Injectable()
export class JobHookListener implements OnModuleInit, OnModuleDestroy {
  private off: (() => void) | null = null;
  private readonly hooks: WatchedCache<'all', JobHookRow[]>;

  constructor(
    private readonly db: Db,
    private readonly queue: JobQueue,
    registry: ResourceRegistry,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.hooks = definitionCache(db, registry, settings, ['extras.jobhook', 'extras.job', 'extras.jobqueue']);
  }

  onModuleInit(): void {
    this.off = onChanges(async (x, event) => {
      // Listeners are the process's: this app's changes only (tests run several apps in one process).
      if (x.ctx.db !== this.db) return;
      // Read in the write's transaction when not cached: a write to these tables there empties the cache again at its end.
      const hooks = (await this.hooks.get('all', () => loadJobHooks(x.exec)))!;
      if (!hooks.some((h) => h.content_type === event.objectType)) return;
      // What a job hook receiver changed runs no job hook (the reference's guard against a hook running itself for ever).
      const records = event.records.filter((r) => r.change_context !== 'job-hook');
      if (!records.length) return;
      const changes = records.map((r) => ({ action: r.action, object_type: r.changed_object_type, object_id: r.changed_object_id, change_id: r.id }));
      const queued = await runJobHooks(x.exec, this.queue, changes, x.ctx.principal.user?.id ?? null, hooks);
      if (queued.length) this.queue.onQueued();
    });
  }

  onModuleDestroy(): void {
    this.off?.();
  }
}
