import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { userResource } from '../../users/resources/user.resource';

/**
 * Notes on any object with the `notes` feature: written at /api/<app>/<model>/<id>/notes/ (or
 * here, naming the object), by the requester; listed with the object's own permissions.
 */
export const noteResource = defineResource({
  app: 'extras',
  model: 'note',
  slug: 'notes',
  naturalKey: ['id'],
  ordering: ['created'],
  display: (r) => `${r.user_name || 'unknown'} - ${String(r.created instanceof Date ? r.created.toISOString() : r.created).slice(0, 16).replace('T', ' ')}`,
  fields: {
    assigned_object: field.genericForeignKey({ allowed: (d) => d.features.includes('notes'), required: true }),
    user: field.foreignKey(() => userResource, { nullable: true, readOnly: true, onDelete: 'setNull' }),
    user_name: field.string({ readOnly: true, maxLength: 150 }),
    note: field.text({ required: true }),
  },
  search: ['note', 'user_name'],
  scopeVia: 'assigned_object',
  features: [],
  beforeSave(states, { ctx }) {
    for (const s of states) {
      if (!s.create) continue;
      s.values.user_id = ctx.principal.user?.id ?? null;
      s.values.user_name = ctx.principal.user?.username ?? '';
    }
  },
});
