import { defineResource } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { groupable } from './definitions';
import { dynamicGroupResource } from './group.resource';

/**
 * An object held by a static group (Nautobot's StaticGroupAssociation): the group and a generic
 * key to the object, of the group's content type. Deleted with the group and with the object (a
 * generic key the engine follows on every delete). The reference also keeps such rows as a
 * cache of the other groups' members and hides them; netkeel computes membership when asked
 * (groups/members.ts), so every association here belongs to a static group.
 */
export const staticGroupAssociationResource = defineResource({
  app: 'extras',
  model: 'staticgroupassociation',
  slug: 'static-group-associations',
  verboseName: 'static group association',
  naturalKey: ['dynamic_group', 'associated_object_type', 'associated_object_id'],
  ordering: ['dynamic_group', 'associated_object_type', 'associated_object_id'],
  displayUses: { dynamic_group: ['id', 'name'] },
  display: (r, h) => `${String(r.associated_object_id)} as a member of ${h.related('dynamic_group')?.name ?? ''}`,
  fields: {
    dynamic_group: field.foreignKey(() => dynamicGroupResource, { required: true, onDelete: 'cascade', relatedName: 'static_group_associations' }),
    associated_object: field.genericForeignKey({ allowed: groupable, required: true }),
  },
  uniqueTogether: [
    {
      fields: ['dynamic_group', 'associated_object'],
      message: 'Static group association with this Dynamic group, Associated object type and Associated object id already exists.',
      columns: ['dynamic_group_id', 'associated_object_type', 'associated_object_id'],
    },
  ],
  indexes: [['dynamic_group_id', 'associated_object_id']],
  search: ['dynamic_group__name', 'dynamic_group__description', 'associated_object_type'],
  features: ['customFields', 'notes'],
  rules(s): FieldErrors | void {
    const group = s.related('dynamic_group');
    if (!group) return;
    if (s.values.associated_object_type !== group.content_type) return { associated_object_type: ['Must match the dynamic_group.content_type'] };
    if (group.group_type !== 'static') return { dynamic_group: [`Group ${String(group.name)} is not staticly defined, adding members directly is not permitted.`] };
  },
});
