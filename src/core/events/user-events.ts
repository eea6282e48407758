import type { Executor } from '../../database/db';
import type { RequestContext } from '../context';
import { ownData } from '../resource/serialize/own-representation';
import type { EventBrokers } from './event-brokers';

/** The user model, by its type (core imports no app; every netkeel has the users app). */
const USER = 'users.user';
/** What the reference's serialize_user_without_config_and_views leaves out. */
const LEFT_OUT = ['config_data', 'default_saved_views'];

/**
 * The user events (`nautobot.users.user.login`, `.logout`, `.change_password`,
 * `nautobot.admin.user.change_password`): `{"data": <the user as a change record would hold it,
 * without config_data>}` (the password is write-only, never shown), published once the open
 * transaction commits (at once outside one). Nothing is read when no broker takes the topic.
 */
export async function publishUserEvents(events: EventBrokers | undefined, ctx: RequestContext, exec: Executor, topic: string, userIds: string[]): Promise<void> {
  const def = ctx.registry.get(USER);
  if (!events || !def || !userIds.length || !events.admits(topic)) return;
  const users = await ownData(ctx, exec, def, userIds);
  for (const id of userIds) {
    const data = users.get(id);
    if (!data) continue;
    for (const key of LEFT_OUT) delete data[key];
    events.publishAfterCommit(topic, { data });
  }
}
