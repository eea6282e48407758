import { defineResource, objectType, ResourceDefinition } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { column } from '../../../database/schema/schema';
import { userResource } from '../../users/resources/user.resource';

export const OBJECT_CHANGE_ACTIONS: [string, string][] = [
  ['create', 'Created'],
  ['update', 'Updated'],
  ['delete', 'Deleted'],
];

export const CHANGE_CONTEXTS: [string, string][] = [
  ['web', 'Web'],
  ['job', 'Job'],
  ['job-hook', 'Job hook'],
  ['orm', 'ORM'],
  ['unknown', 'Unknown'],
];

/**
 * Models the reference keeps no change log for (no `to_objectchange`: users, their tokens and
 * groups, a user's saved view associations), and the change records themselves.
 */
const NOT_LOGGED = new Set(['users.user', 'users.token', 'users.group', 'extras.objectchange', 'extras.usersavedviewassociation']);

export const isChangeLogged = (def: ResourceDefinition) => !NOT_LOGGED.has(objectType(def));

/** The reference's CHANGELOG_MAX_OBJECT_REPR and CHANGELOG_MAX_CHANGE_CONTEXT_DETAIL. */
export const MAX_OBJECT_REPR = 200;
export const MAX_CHANGE_CONTEXT_DETAIL = 400;

/**
 * One change to one object (Nautobot's ObjectChange): written by the change log extension
 * (`change-log/extension.ts`) in the transaction of every create, update and delete; read-only
 * through the API, newest first. The changed object is a pointer, not a dependent: its records
 * outlive it (`readOnly` generic keys are never deleted with their target). Unlike the
 * reference, a record is read within its changed object's view scope (`scopeVia`).
 */
export const objectChangeResource = defineResource({
  app: 'extras',
  model: 'objectchange',
  slug: 'object-changes',
  verboseName: 'object change',
  readOnly: true,
  naturalKey: ['id'],
  ordering: ['-time'],
  display: (r) => `${r.changed_object_type ?? ''} ${r.object_repr} ${String(OBJECT_CHANGE_ACTIONS.find(([v]) => v === r.action)?.[1] ?? r.action).toLowerCase()} by ${r.user_name}`,
  fields: {
    time: field.datetime({ readOnly: true, index: true }),
    user: field.foreignKey(() => userResource, { nullable: true, readOnly: true, onDelete: 'setNull', relatedName: '+' }),
    user_name: field.string({ readOnly: true, maxLength: 150 }),
    request_id: field.uuid({ readOnly: true }),
    action: field.choice(OBJECT_CHANGE_ACTIONS, { readOnly: true, maxLength: 50 }),
    changed_object: field.genericForeignKey({ readOnly: true, allowed: isChangeLogged }),
    change_context: field.choice(CHANGE_CONTEXTS, { readOnly: true, maxLength: 50, index: true }),
    change_context_detail: field.string({ readOnly: true, maxLength: MAX_CHANGE_CONTEXT_DETAIL }),
    related_object: field.genericForeignKey({ readOnly: true, nullable: true }),
    object_repr: field.string({ readOnly: true, maxLength: MAX_OBJECT_REPR }),
    object_data: field.json({ readOnly: true }),
    object_data_v2: field.json({ readOnly: true, nullable: true }),
  },
  // A writer's own account of a change (`ChangedObject.detail`: identity intake's history entries), numbered per object; no API field.
  columns: { _detail: column.json({ nullable: true }), _seq: column.integer({ nullable: true }) },
  indexes: [['request_id', 'changed_object_type', 'changed_object_id'], ['user_id', 'changed_object_type', 'changed_object_id'], ['user_name', 'changed_object_type', 'changed_object_id']],
  search: ['user_name', 'object_repr'],
  // A record shows its object's data: it is visible to whom may view that object (a deleted
  // object's records, to whom may view every object of its type), besides extras.view_objectchange.
  scopeVia: 'changed_object',
  features: [],
});
