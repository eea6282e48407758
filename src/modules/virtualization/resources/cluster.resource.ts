import { defineResource } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { ident, inList, sql } from '../../../database/sql';
import { locatedMixin, locationName } from '../../dcim/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { clusterGroupResource, clusterTypeResource } from './cluster-groups.resource';

/**
 * A cluster of virtual machines, of a type, optionally in a group, a tenant's and a location
 * (whose type must list clusters). Devices name the cluster they host (`dcim.device.cluster`):
 * a cluster moved to a location must still hold its hosts' locations.
 */
export const clusterResource = defineResource({
  app: 'virtualization',
  model: 'cluster',
  // Read by a location's counts or every model's tags: kept with a detail (serialize/kept-values.ts).
  watched: true,
  slug: 'clusters',
  mixins: [named(255), tenancyMixin(), locatedMixin({ nullable: true })],
  fields: {
    cluster_type: field.foreignKey(() => clusterTypeResource, { required: true, onDelete: 'protect', relatedName: 'clusters' }),
    cluster_group: field.foreignKey(() => clusterGroupResource, { nullable: true, onDelete: 'protect', relatedName: 'clusters' }),
    comments: field.text(),
    device_count: field.count('dcim.device', 'cluster'),
    virtualmachine_count: field.count('virtualization.virtualmachine', 'cluster'),
  },
  search: ['comments'],
  filterAliases: { cluster_group_id: 'cluster_group', cluster_type_id: 'cluster_type' },
  features: ['tags', 'customFields', 'notes'],
  /**
   * The reference's clean(): a stored cluster with a location keeps only hosts of that location
   * (or of none). One read of the hosts' locations for the whole batch.
   */
  async validateBatch(states, w) {
    const checked = states.filter((s) => !s.create && s.values.location_id);
    if (!checked.length) return;
    const hosts = await w.exec.query<{ cluster_id: string; location_id: string; n: number | string }>(
      sql`SELECT ${ident('cluster_id')}, ${ident('location_id')}, COUNT(*) AS n FROM ${ident('dcim_device')}
          WHERE ${inList(ident('cluster_id'), checked.map((s) => String(s.values.id)))} AND ${ident('location_id')} IS NOT NULL
          GROUP BY ${ident('cluster_id')}, ${ident('location_id')}`,
    );
    return Promise.all(
      states.map(async (s): Promise<FieldErrors | void> => {
        if (!checked.includes(s)) return;
        const elsewhere = hosts.filter((h) => String(h.cluster_id) === String(s.values.id) && String(h.location_id) !== String(s.values.location_id));
        const n = elsewhere.reduce((sum, h) => sum + Number(h.n), 0);
        if (n) return { location: [`${n} devices are assigned as hosts for this cluster but belong to a location other than "${await locationName(w, s.values.location_id)}".`] };
      }),
    );
  },
});
