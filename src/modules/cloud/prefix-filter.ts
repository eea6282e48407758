import type { CustomFilter, CustomFilterHelpers } from '../../core/resource/definition';
import { isUuid, parseUuid } from '../../core/resource/query/values';
import { and, FALSE, ident, inList, or, Sql, sql } from '../../database/sql';
import { IpError, parseNetwork } from '../ipam/ip';
import { prefixResource } from '../ipam/resources/prefix.resource';

/**
 * The reference's PrefixFilter: prefixes by UUID (each must exist and be visible, as for any
 * foreign key) or by their text (`10.0.0.0/16`: that network in any namespace the requester may
 * view, as the reference's net_equals matches among the prefixes). `within(h, ids)` says how the object holds one of the
 * prefixes the subquery `ids` selects.
 */
export function prefixFilter(within: (h: CustomFilterHelpers, ids: Sql) => Sql | Promise<Sql>): CustomFilter {
  return {
    lookups: ['n'],
    compile: async (values, _l, h) => {
      const uuids = values.filter(isUuid).map((v) => parseUuid(v));
      const texts = values.filter((v) => !isUuid(v)).map(String);
      const ids = uuids.length ? await h.resolveIds(prefixResource, uuids) : [];
      const p = (c: string) => ident('pp', c);
      const byText = texts.map((text) => {
        try {
          const n = parseNetwork(text);
          return and([sql`${p('ip_version')} = ${n.version}`, sql`${p('network')} = ${n.network}`, sql`${p('prefix_length')} = ${n.length}`]);
        } catch (e) {
          if (e instanceof IpError) h.invalid(`Select a valid choice. ${text} is not one of the available choices.`);
          throw e;
        }
      });
      const conds = [ids.length ? inList(p('id'), ids) : null, ...byText];
      if (!conds.some(Boolean)) return FALSE;
      // By text among the prefixes the requester may view (all of them in a permission constraint).
      return await within(h, (await h.rows(prefixResource, 'pp')).select('id', or(conds)));
    },
  };
}
