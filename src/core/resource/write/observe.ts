import type { Executor } from '../../../database/db';
import type { RequestContext } from '../../context';
import type { ResourceDefinition } from '../definition';
import type { ChangeBatch, ChangedObject } from '../extension';

/**
 * Tells the extensions a model takes that one batch of its objects was written (see
 * `ObservePart`). The engine's writer calls it for every batch; a special endpoint that writes a
 * model's rows itself (identity intake) calls it too, inside its transaction.
 */
export async function notifyChanges(ctx: RequestContext, exec: Executor, def: ResourceDefinition, action: ChangeBatch['action'], objects: ChangedObject[]): Promise<void> {
  if (!objects.length) return;
  for (const e of ctx.registry.extensionsOf(def)) {
    if (e.observe) await e.observe.changed({ ctx, exec, def }, { action, objects });
  }
}
