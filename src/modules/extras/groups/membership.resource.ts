import { defineResource, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { unscoped } from '../../../core/resource/query/rows';
import { ident, sql } from '../../../database/sql';
import { GROUP_OPERATORS } from './definitions';
import { dynamicGroupResource } from './group.resource';

/** Whether `to` is reachable from `from` going down the parent -> child edges. */
function reaches(edges: Map<string, Set<string>>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length) {
    const at = stack.pop()!;
    if (at === to) return true;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const next of edges.get(at) ?? []) stack.push(next);
  }
  return false;
}

/**
 * A group inside a dynamic-set group (Nautobot's DynamicGroupMembership): the child `group`, the
 * `operator` that combines its members with those of the siblings before it (by `weight`), and
 * the `parent_group`. The reference's rules: the parent is a dynamic-set group, the child is not
 * static, both hold the same content type, and no group becomes its own ancestor (checked
 * against the stored memberships and the batch's earlier ones, in one statement).
 */
export const dynamicGroupMembershipResource = defineResource({
  app: 'extras',
  model: 'dynamicgroupmembership',
  slug: 'dynamic-group-memberships',
  verboseName: 'dynamic group membership',
  naturalKey: ['group', 'parent_group', 'operator', 'weight'],
  ordering: ['parent_group', 'weight', 'group'],
  displayUses: { group: ['id', 'name'], parent_group: ['id', 'name'] },
  display: (r, h) => `${h.related('parent_group')?.name ?? ''} > ${r.operator} (${r.weight}) > ${h.related('group')?.name ?? ''}`,
  fields: {
    // A group inside another cannot be deleted (the reference's "Cannot delete DynamicGroup while child of other DynamicGroups.").
    group: field.foreignKey(() => dynamicGroupResource, { required: true, onDelete: 'protect', relatedName: '+' }),
    parent_group: field.foreignKey(() => dynamicGroupResource, { required: true, onDelete: 'cascade', relatedName: 'dynamic_group_memberships' }),
    operator: field.choice(GROUP_OPERATORS, { required: true, maxLength: 12 }),
    weight: field.integer({ required: true, minValue: 0, maxValue: 32767 }),
  },
  uniqueTogether: [{ fields: ['group', 'parent_group', 'operator', 'weight'] }],
  search: ['operator', 'group__name', 'parent_group__name'],
  features: [],
  rules(s): FieldErrors | void {
    const group = s.related('group');
    const parent = s.related('parent_group');
    if (!group || !parent) return;
    if (parent.group_type !== 'dynamic-set') return { parent_group: ['A parent group must be of `group_type` `"dynamic-set"`.'] };
    if (group.group_type === 'static') return { group: ['Groups of `group_type` `"static"` may not be child groups at this time.'] };
    if (group.content_type !== parent.content_type) return { group: ['ContentType for group and parent_group must match'] };
    if (String(group.id) === String(parent.id)) return { group: ['Cannot add group as a child of itself'] };
  },
  async validateBatch(states: WriteState[], { exec }) {
    // A model rule's lookup: every stored edge, whoever may view it (a cycle is one whatever the writer sees).
    const rows = await exec.query<{ id: string; parent_group_id: string; group_id: string }>(
      sql`SELECT ${ident('id')}, ${ident('parent_group_id')}, ${ident('group_id')} ${unscoped(dynamicGroupMembershipResource).from()}`,
    );
    const own = new Set(states.map((s) => (s.existing ? String(s.existing.id) : '')).filter(Boolean));
    const edges = new Map<string, Set<string>>();
    const add = (parent: string, child: string) => edges.set(parent, (edges.get(parent) ?? new Set()).add(child));
    for (const r of rows) if (!own.has(String(r.id))) add(String(r.parent_group_id), String(r.group_id));
    return states.map((s): FieldErrors | void => {
      const parent = String(s.values.parent_group_id ?? '');
      const child = String(s.values.group_id ?? '');
      if (!parent || !child) return;
      if (reaches(edges, child, parent)) return { group: ['Cannot add ancestor as a child'] };
      add(parent, child);
    });
  },
});
