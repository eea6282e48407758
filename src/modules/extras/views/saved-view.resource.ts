import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { unscoped } from '../../../core/resource/query/rows';
import { ident, inList, sql } from '../../../database/sql';
import { userResource } from '../../users/resources/user.resource';

/**
 * A saved configuration of a list view (filters, sort, columns, page size) under a name, owned by
 * the user who saved it (the reference's SavedView). At most one saved view per list view is its
 * global default: saving one as the default takes the mark from the others of that view, and a
 * global default is always shared.
 */
export const savedViewResource = defineResource({
  app: 'extras',
  model: 'savedview',
  slug: 'saved-views',
  verboseName: 'saved view',
  naturalKey: ['owner', 'name', 'view'],
  ordering: ['owner', 'view', 'name'],
  displayUses: { owner: ['username'] },
  display: (r, h) => `${h.related('owner')?.username ?? ''} - ${r.view} - ${r.name}`,
  fields: {
    owner: field.foreignKey(() => userResource, { readOnly: true, onDelete: 'cascade', relatedName: 'saved_views', help: 'The user that created this view' }),
    name: field.string({ required: true, maxLength: 255, help: 'The name of this view' }),
    view: field.string({ required: true, maxLength: 255, help: 'The name of the list view that the saved view is derived from, e.g. dcim:device_list' }),
    config: field.json({ default: {}, help: 'Saved Configuration on this view' }),
    is_global_default: field.boolean(),
    is_shared: field.boolean({ default: true }),
  },
  uniqueTogether: [{ fields: ['owner', 'name', 'view'] }],
  search: ['name', 'owner__username'],
  features: [],
  rules(s, { ctx }) {
    // The owner is who saves it (set here, before uniqueness is checked).
    if (s.create) s.values.owner_id = ctx.principal.user?.id ?? null;
    const config = s.values.config;
    if (config !== null && config !== undefined && (typeof config !== 'object' || Array.isArray(config))) return { config: ['Saved view config must be a JSON object.'] };
  },
  beforeSave(states) {
    const defaults = new Map<string, (typeof states)[number]>();
    for (const s of states) {
      if (!s.values.is_global_default) continue;
      // A global default is shared; of several for one view in one request, the last one wins.
      s.values.is_shared = true;
      const earlier = defaults.get(String(s.values.view));
      if (earlier) earlier.values.is_global_default = false;
      defaults.set(String(s.values.view), s);
    }
  },
  async afterSave(_ids, { exec }, states) {
    const views = [...new Set(states.filter((s) => s.values.is_global_default).map((s) => String(s.values.view)))];
    if (!views.length) return;
    const winners = states.filter((s) => s.values.is_global_default).map((s) => String(s.values.id));
    // The reference's queryset update: the other saved views of these views stop being the default (no change record, as there).
    const t = unscoped(savedViewResource).table;
    await exec.query(
      sql`UPDATE ${t} SET ${ident('is_global_default')} = ${false} WHERE ${inList(ident('view'), views)} AND ${ident('is_global_default')} = ${true} AND NOT ${inList(ident('id'), winners)}`,
    );
  },
});

/**
 * The saved view a user has chosen for a list view (the reference's UserSavedViewAssociation):
 * one per user and view; `view_name` is always the saved view's own.
 */
export const userSavedViewAssociationResource = defineResource({
  app: 'extras',
  model: 'usersavedviewassociation',
  slug: 'user-saved-view-associations',
  verboseName: 'user saved view association',
  naturalKey: ['user', 'view_name'],
  ordering: ['created'],
  displayUses: { user: ['username'], saved_view: ['name', 'view', 'owner__username'] },
  display: (r, h) => {
    const sv = h.related('saved_view');
    return `${h.related('user')?.username ?? ''}: ${sv?.owner__username ?? ''} - ${sv?.view ?? ''} - ${sv?.name ?? ''} - ${r.view_name}`;
  },
  fields: {
    saved_view: field.foreignKey(() => savedViewResource, { required: true, onDelete: 'cascade', relatedName: 'user_assignments' }),
    user: field.foreignKey(() => userResource, { required: true, onDelete: 'cascade', relatedName: 'saved_view_assignments' }),
    view_name: field.string({ required: true, maxLength: 255 }),
  },
  uniqueTogether: [{ fields: ['user', 'view_name'], message: 'User saved view association with this User and View name already exists.' }],
  features: [],
  rules(s) {
    // The reference's clean(): the view is the saved view's.
    const view = s.related('saved_view')?.view;
    if (view !== undefined && view !== null) s.values.view_name = view;
  },
});
