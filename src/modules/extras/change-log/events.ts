import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventBrokers } from '../../../core/events/event-brokers';
import type { ExtensionContext } from '../../../core/resource/extension';
import { Db } from '../../../database/db';
import { CHANGE_CONTEXTS } from '../resources/object-change.resource';
import { onChanges, type ChangeEvent } from './listeners';
import { pythonTimestamp, snapshots } from './snapshots';

const CONTEXT_LABELS = new Map(CHANGE_CONTEXTS);

/**
 * Publishes each change record as an event (the reference's change events): topic
 * `nautobot.<action>.<app_label>.<model>`, payload the snapshots (`prechange`, `postchange`,
 * `differences`) and the change's `context`, once the write commits (a rolled-back write
 * publishes nothing). A topic no broker takes costs nothing: not a statement, not a payload.
 */
@Injectable()
export class ChangeEventPublisher implements OnModuleInit, OnModuleDestroy {
  private off: (() => void) | null = null;

  constructor(
    private readonly db: Db,
    private readonly events: EventBrokers,
  ) {}

  onModuleInit(): void {
    this.off = onChanges((x, event) => this.changed(x, event));
  }

  onModuleDestroy(): void {
    this.off?.();
  }

  private async changed(x: ExtensionContext, event: ChangeEvent): Promise<void> {
    // Listeners are the process's: this app's changes only (tests run several apps in one process).
    if (x.ctx.db !== this.db) return;
    const topic = `nautobot.${event.action}.${event.objectType}`;
    if (!this.events.admits(topic)) return;
    // Read in the write's transaction: the previous records as they are before anything later.
    const snaps = await snapshots(x, event);
    for (const r of event.records) {
      this.events.publishAfterCommit(topic, {
        ...snaps.get(r.id)!,
        context: {
          change_context: CONTEXT_LABELS.get(r.change_context) ?? r.change_context,
          change_context_detail: r.change_context_detail,
          request_id: r.request_id,
          user_name: r.user_name,
          timestamp: pythonTimestamp(r.time),
        },
      });
    }
  }
}
