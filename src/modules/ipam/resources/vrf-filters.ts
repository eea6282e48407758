import { CustomFilter, CustomFilterHelpers, model } from '../../../core/resource/definition';
import { ident, inList, Sql, sql } from '../../../database/sql';

type Owner = 'prefix' | 'address';

/** The VRFs named by UUID or name (in a query each must exist and be visible, else 400). */
const vrfIds = (values: unknown[], h: CustomFilterHelpers) => h.resolveIds(model('ipam.vrf')(), values);

/**
 * Prefixes (or the addresses whose parent prefix is) among those assigned to a VRF satisfying
 * `cond` on `va.vrf_id`, through the assignments the requester may view.
 */
async function assigned(owner: Owner, h: CustomFilterHelpers, cond: Sql): Promise<Sql> {
  const a = (c: string) => ident('va', c);
  const rows = await h.rows(model('ipam.vrfprefixassignment')(), 'va');
  if (owner === 'prefix') return sql`EXISTS (SELECT 1 ${rows.from(sql`${a('prefix_id')} = ${h.col('id')}`, cond)})`;
  return sql`${h.col('parent_id')} IN ${rows.select('prefix_id', cond)}`;
}

/** `vrf`: assigned to any of the VRFs (for addresses: through the parent prefix). */
export const vrfFilter = (owner: Owner): CustomFilter => ({
  compile: async (values, _l, h) => assigned(owner, h, inList(ident('va', 'vrf_id'), await vrfIds(values, h))),
});

/**
 * `present_in_vrf`: in the VRF, or in a VRF that exports a route target the VRF imports
 * (routes that are present in its table): through the route targets and VRFs the requester may view.
 */
export const presentInVrfFilter = (owner: Owner): CustomFilter => ({
  compile: async (values, _l, h) => {
    const ids = await vrfIds(values, h);
    const targets = await h.rows(model('ipam.routetarget')(), 'rt');
    const importing = targets.select('id', sql`${ident('rt', 'id')} IN (SELECT i.${ident('routetarget_id')} FROM ${ident('ipam_vrf_import_targets')} i WHERE ${inList(ident('i', 'vrf_id'), ids)})`);
    const vrfs = await h.rows(model('ipam.vrf')(), 'ev');
    const exporting = vrfs.select('id', sql`${ident('ev', 'id')} IN (SELECT e.${ident('vrf_id')} FROM ${ident('ipam_vrf_export_targets')} e WHERE e.${ident('routetarget_id')} IN ${importing})`);
    return assigned(owner, h, sql`(${inList(ident('va', 'vrf_id'), ids)} OR ${ident('va', 'vrf_id')} IN ${exporting})`);
  },
});
