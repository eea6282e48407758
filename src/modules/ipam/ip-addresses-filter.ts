import { CustomFilter, CustomFilterHelpers, model } from '../../core/resource/definition';
import { isUuid, parseUuid } from '../../core/resource/query/values';
import { and, FALSE, ident, inList, or, Sql, sql } from '../../database/sql';
import { IpError, parseCidr } from './ip';

/**
 * The reference's `ip_addresses` filter (address or ID, its filter_address_or_pk_in): addresses
 * by UUID or by their text (`10.0.0.1` is `10.0.0.1/32`; the mask must match), among those the
 * requester may view (all of them in a permission constraint); a UUID naming none matches
 * nothing, as the reference's. `within(h, ips)` says how the object holds one of the addresses
 * the sub-select `ips` gives, reading what lies between through `h.rows`.
 */
export function ipAddressesFilter(within: (h: CustomFilterHelpers, ips: Sql) => Promise<Sql>): CustomFilter {
  return {
    lookups: ['n'],
    compile: async (values, _l, h) => {
      const a = (c: string) => ident('ipf', c);
      const uuids = values.filter(isUuid).map((v) => parseUuid(v));
      const byText = values
        .filter((v) => !isUuid(v))
        .map((v) => {
          try {
            const c = parseCidr(String(v));
            return and([sql`${a('ip_version')} = ${c.version}`, sql`${a('host')} = ${c.address}`, sql`${a('mask_length')} = ${c.length}`]);
          } catch (e) {
            if (e instanceof IpError) h.invalid(`Select a valid choice. ${String(v)} is not one of the available choices.`);
            throw e;
          }
        });
      const conds = [uuids.length ? inList(a('id'), uuids) : null, ...byText];
      if (!conds.some(Boolean)) return FALSE;
      return within(h, (await h.rows(model('ipam.ipaddress')(), 'ipf')).select('id', or(conds)));
    },
  };
}

/**
 * The assignments (ip-address-to-interface) the requester may view of the addresses `ips`, as a
 * sub-select of their `column` (`interface_id`, `vm_interface_id`).
 */
export async function assignedInterfaces(h: CustomFilterHelpers, ips: Sql | null, column: 'interface_id' | 'vm_interface_id'): Promise<Sql> {
  const rows = await h.rows(model('ipam.ipaddresstointerface')(), 'ipa');
  return rows.select(column, sql`${ident('ipa', column)} IS NOT NULL`, ips ? sql`${ident('ipa', 'ip_address_id')} IN ${ips}` : null);
}
