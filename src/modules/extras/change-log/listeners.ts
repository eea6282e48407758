import type { ChangeBatch, ChangedObject, ExtensionContext } from '../../../core/resource/extension';

type Obj = Record<string, unknown>;

/** One change record as stored (the columns of `extras_objectchange`), handed to the listeners too. */
export interface ChangeRecord {
  id: string;
  time: Date;
  user_id: string | null;
  user_name: string;
  request_id: string;
  action: ChangeBatch['action'];
  changed_object_type: string;
  changed_object_id: string;
  change_context: string;
  change_context_detail: string;
  related_object_type: string | null;
  related_object_id: string | null;
  object_repr: string;
  object_data: Obj;
  object_data_v2: Obj | null;
  /** The writer's account of the change (`ChangedObject.detail`), not an API field. */
  _detail: Obj | null;
  _seq: number | null;
}

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
