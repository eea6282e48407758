import { hashPassword } from '../../../core/auth/passwords';
import { eventBrokersOf } from '../../../core/events/event-brokers';
import { publishUserEvents } from '../../../core/events/user-events';
import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { column } from '../../../database/schema/schema';
import { groupResource } from './group.resource';

export const USERNAME = /^[\w.@+-]+$/;

export const userResource = defineResource({
  app: 'users',
  model: 'user',
  slug: 'users',
  watched: true,
  // From when the auth guard asks the user status providers (core/auth/user-status.ts); kept by them.
  columns: { status_check_after: column.datetime({ nullable: true }) },
  naturalKey: ['username'],
  ordering: ['username'],
  display: (r) => r.username,
  fields: {
    username: field.string({
      required: true,
      unique: true,
      maxLength: 150,
      validate: (v: string) => (USERNAME.test(v) ? undefined : 'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.'),
    }),
    password: field.string({ writeOnly: true, filter: false, sortable: false, maxLength: 128, dbLength: 256 }),
    first_name: field.string({ maxLength: 150 }),
    last_name: field.string({ maxLength: 150 }),
    email: field.email({ maxLength: 254, label: 'Email address' }),
    is_active: field.boolean({ default: true, label: 'Active' }),
    is_staff: field.boolean({ label: 'Staff status' }),
    is_superuser: field.boolean({ label: 'Superuser status' }),
    date_joined: field.datetime({ default: () => new Date() }),
    last_login: field.datetime({ readOnly: true, nullable: true }),
    config_data: field.json({ default: () => ({}) }),
    groups: field.manyToMany(() => groupResource, { table: 'users_user_groups', source: 'user_id', target: 'group_id' }, { writable: true }),
  },
  search: ['username', 'first_name', 'last_name', 'email'],
  filterAliases: { groups_id: 'groups' },
  features: [],
  neverExempt: true,
  /** Only a superuser makes or changes superusers: a delegated user admin cannot escalate. */
  rules(s, { ctx }) {
    if (ctx.principal.user?.is_superuser || !ctx.principal.user) return;
    const errors: Record<string, string[]> = {};
    for (const flag of ['is_superuser', 'is_staff'] as const) {
      const was = !!s.existing?.[flag];
      if (s.touched.has(flag) && !!s.values[flag] !== was) errors[flag] = [`Only a superuser may change ${flag === 'is_superuser' ? 'superuser' : 'staff'} status.`];
    }
    if (s.existing?.is_superuser) errors.non_field_errors = ['Only a superuser may change a superuser account.'];
    return errors;
  },
  async beforeSave(states) {
    for (const s of states) {
      if (s.touched.has('password') && s.values.password) s.values.password = await hashPassword(String(s.values.password));
      if (s.create && !s.values.date_joined) s.values.date_joined = new Date();
    }
  },
  /** A password set on an existing user is an event once the write commits: the user's own change, or someone else's (an administrator's). */
  async afterSave(ids, { ctx, exec }, states) {
    const changed = ids.filter((_, i) => !states[i].create && states[i].touched.has('password'));
    if (!changed.length) return;
    const me = ctx.principal.user?.id;
    const events = eventBrokersOf(ctx);
    await publishUserEvents(events, ctx, exec, 'nautobot.users.user.change_password', changed.filter((id) => id === me));
    await publishUserEvents(events, ctx, exec, 'nautobot.admin.user.change_password', changed.filter((id) => id !== me));
  },
});
