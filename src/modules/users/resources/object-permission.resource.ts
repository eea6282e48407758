import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { filterCompiler } from '../../../core/resource/query/scope';
import { ValueError } from '../../../core/resource/query/values';
import { groupResource } from './group.resource';
import { userResource } from './user.resource';

const ACTIONS_HELP = 'The list of actions granted by this permission (view, add, change, delete, or a custom action).';

export const objectPermissionResource = defineResource({
  app: 'users',
  model: 'objectpermission',
  slug: 'permissions',
  className: 'ObjectPermission',
  watched: true,
  verboseName: 'permission',
  verboseNamePlural: 'permissions',
  naturalKey: ['name'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    name: field.string({ required: true, unique: true, maxLength: 100 }),
    description: field.string({ maxLength: 200 }),
    enabled: field.boolean({ default: true }),
    object_types: field.contentTypes({ table: 'users_objectpermission_object_types', source: 'objectpermission_id' }, () => true, { required: true }),
    actions: field.json({
      required: true,
      help: ACTIONS_HELP,
      validate: (v: unknown) =>
        Array.isArray(v) && v.length && v.every((a) => typeof a === 'string' && /^[a-z_]+$/.test(a)) ? undefined : 'Enter a non-empty list of action names, e.g. ["view", "change"].',
    }),
    constraints: field.json({
      nullable: true,
      help: 'Queryset filter matching the applicable objects of the selected type(s), or null for all; a list ORs several sets.',
      validate: (v: unknown) => {
        const ok = (c: unknown) => !!c && typeof c === 'object' && !Array.isArray(c);
        return v === null || ok(v) || (Array.isArray(v) && v.every(ok)) ? undefined : 'Constraints must be a JSON object, a list of objects, or null.';
      },
    }),
    users: field.manyToMany(() => userResource, { table: 'users_objectpermission_users', source: 'objectpermission_id', target: 'user_id' }, { writable: true }),
    groups: field.manyToMany(() => groupResource, { table: 'users_objectpermission_groups', source: 'objectpermission_id', target: 'group_id' }, { writable: true }),
  },
  search: ['name', 'description'],
  filterAliases: { groups_id: 'groups' },
  features: [],
  neverExempt: true,
  /** Constraints must compile for every selected model: a typo would otherwise grant nothing silently. */
  async rules(s, { ctx, exec }) {
    const constraints = s.values.constraints;
    if (!constraints) return;
    const list = Array.isArray(constraints) ? constraints : [constraints];
    // A PATCH of the constraints alone is checked against the stored object types.
    const types = await s.linked('object_types');
    const compiler = filterCompiler(ctx, exec);
    for (const type of types) {
      const def = ctx.registry.get(type);
      if (!def) continue;
      for (const c of list) {
        try {
          const probe = JSON.parse(JSON.stringify(c).replace(/"\$user"/g, '"00000000-0000-0000-0000-000000000000"'));
          await compiler.fromConstraint(def, probe, 'x');
        } catch (e) {
          if (e instanceof ValueError) return { constraints: [`Invalid filter for ${type}: ${e.message}`] };
          throw e;
        }
      }
    }
  },
});

