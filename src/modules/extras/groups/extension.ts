import { objectType } from '../../../core/resource/definition';
import type { ModelExtension } from '../../../core/resource/extension';
import { groupable, GROUP_TYPE } from './definitions';
import { membersCondition } from './members';

/**
 * `dynamic_groups` on every model a group may hold (the reference's filter of that name, by
 * group name or id, `__n` too): the objects that are members of any of the groups now, as one
 * condition (members.ts). Groups, memberships and associations are read as the filter's mode
 * reads other models (in a query: those the requester may view), and the groups' filters are
 * compiled as this request's own terms.
 */
export const dynamicGroupsExtension: ModelExtension = {
  feature: 'customFields',
  applies: groupable,
  filters: {
    dynamic_groups: {
      lookups: ['', 'n'],
      async compile(values, _lookup, h) {
        const type = objectType(h.def);
        const groups = h.ctx.registry.get(GROUP_TYPE)!;
        const ids = await h.resolveIds(groups, values);
        // Only groups of this model hold its objects (the reference's query_params content_type): another's holds none here.
        return membersCondition({ ctx: h.ctx, exec: h.exec, view: h.mode, rows: (d, a) => h.rows(d, a), term: (k, v) => h.term(k, v), id: h.col('id') }, type, ids);
      },
    },
  },
};
