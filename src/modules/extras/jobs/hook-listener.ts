import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Db } from '../../../database/db';
import { onChanges } from '../change-log/listeners';
import { runJobHooks } from './hooks';
import { JobQueue } from './job-queue';

/**
 * Runs job hooks on object changes: hears each batch of change records inside the write's
 * transaction and queues the runs of the matching hooks (two statements a batch at most), as the
 * user who made the change. A rolled back write queues nothing.
 */
@Injectable()
export class JobHookListener implements OnModuleInit, OnModuleDestroy {
  private off: (() => void) | null = null;

  constructor(
    private readonly db: Db,
    private readonly queue: JobQueue,
  ) {}

  onModuleInit(): void {
    this.off = onChanges(async (x, event) => {
      // Listeners are the process's: this app's changes only (tests run several apps in one process).
      if (x.ctx.db !== this.db) return;
      const changes = event.records.map((r) => ({ action: r.action, object_type: r.changed_object_type, object_id: r.changed_object_id, change_id: r.id }));
      const queued = await runJobHooks(x.exec, this.queue, changes, x.ctx.principal.user?.id ?? null);
      if (queued.length) this.queue.onQueued();
    });
  }

  onModuleDestroy(): void {
    this.off?.();
  }
}
