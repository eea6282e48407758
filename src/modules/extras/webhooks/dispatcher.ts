import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { SETTINGS } from '../../../config/settings.module';
import type { Settings } from '../../../config/settings';
import { ResourceRegistry } from '../../../core/resource/registry';
import type { WatchedCache } from '../../../database/watched-cache';
import { Db } from '../../../database/db';
import { ident, sql } from '../../../database/sql';
import type { ExtensionContext } from '../../../core/resource/extension';
import { unscoped } from '../../../core/resource/query/rows';
import { onChanges, type ChangeEvent } from '../change-log/listeners';
import { DEFAULT_QUEUE } from '../jobs/choices';
import { JobQueue } from '../jobs/job-queue';
import { jobQueueResource } from '../jobs/resources/job-queue.resource';
import { jobResource } from '../jobs/resources/job.resource';
import { DELIVERY_JOB } from './delivery.job';
import { loadWebhooks, webhookDeliveries, type WebhookRow } from './dispatch';
import { definitionCache } from '../../../core/resource/definition-cache';

/**
 * Hears every batch of change records (inside the write's transaction) and queues a delivery
 * job per (webhook, change) the batch triggers: a rolled back write queues nothing, and a slow or
 * failing receiver never holds or fails a write. The enabled webhooks are kept in a
 * `WatchedCache` of their tables (as custom field definitions are): no statement when no webhook
 * matches.
 */
@Injectable()
export class WebhookDispatcher implements OnModuleInit, OnModuleDestroy {
  private off: (() => void) | null = null;
  private readonly webhooks: WatchedCache<'all', WebhookRow[]>;

  constructor(
    private readonly db: Db,
    private readonly queue: JobQueue,
    registry: ResourceRegistry,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.webhooks = definitionCache(db, registry, settings, ['extras.webhook']);
  }

  onModuleInit(): void {
    this.off = onChanges((x, event) => this.dispatch(x, event));
  }

  onModuleDestroy(): void {
    this.off?.();
  }

  private async dispatch(x: ExtensionContext, event: ChangeEvent): Promise<void> {
    // Listeners are the process's: this app's changes only (tests run several apps in one process).
    if (x.ctx.db !== this.db) return;
    const webhooks = (await this.webhooks.get('all', () => loadWebhooks(x.exec)))!;
    const deliveries = await webhookDeliveries(x, event, x.ctx.now(), webhooks);
    if (!deliveries.length) return;
    const [job] = await x.exec.query(
      sql`SELECT j.*, q.${ident('id')} AS ${ident('queue_id')}, q.${ident('name')} AS ${ident('queue_name')} FROM ${unscoped(jobResource, 'j').table}
          LEFT JOIN ${unscoped(jobQueueResource, 'q').table} ON q.${ident('id')} = j.${ident('default_job_queue_id')}
          WHERE j.${ident('module_name')} = ${DELIVERY_JOB.module} AND j.${ident('job_class_name')} = ${DELIVERY_JOB.className}`,
    );
    if (!job) return;
    const userId = x.ctx.principal.user?.id ?? null;
    await this.queue.enqueue(
      x.exec,
      deliveries.map((d) => ({ job, userId, data: { webhook: d.webhookId, context: d.context }, queue: { id: String(job.queue_id), name: String(job.queue_name ?? DEFAULT_QUEUE) } })),
    );
    this.queue.onQueued();
  }
}
