import type { ChangedObject, ExtensionContext } from '../../../core/resource/extension';
import type { ChangeRecord } from './extension';

/** What a listener receives for each batch of change records, inside the write's transaction. */
export interface ChangeEvent {
  action: 'create' | 'update' | 'delete';
  /** `app_label.model` of the batch's objects. */
  objectType: string;
  /** The objects as the writer named them (`before`: the stored row before an update, where the writer had it). */
  objects: ChangedObject[];
  /** The records just written, one per object, in the objects' order. */
  records: ChangeRecord[];
}

/**
 * Called after the change records of a batch are written, inside the write's transaction (the
 * x's `exec`): a throw rolls the write back, so a listener that must not fail a write (a webhook
 * delivery) only queues its work here.
 */
export type ChangeListener = (x: ExtensionContext, event: ChangeEvent) => Promise<void> | void;

const listeners = new Set<ChangeListener>();

/** Registers a listener (job hooks, webhooks); returns the function that removes it. */
export function onChanges(listener: ChangeListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function notifyListeners(x: ExtensionContext, event: ChangeEvent): Promise<void> {
  for (const l of listeners) await l(x, event);
}
