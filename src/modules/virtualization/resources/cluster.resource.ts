import { defineResource } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { ident, sql } from '../../../database/sql';
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
  /** The reference's clean(): a stored cluster with a location keeps only hosts of that location (or of none). */
  async rules(s, w): Promise<FieldErrors | void> {
    if (s.create || !s.values.location_id) return;
    const [row] = await w.exec.query<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM ${ident('dcim_device')} WHERE ${ident('cluster_id')} = ${s.values.id} AND ${ident('location_id')} IS NOT NULL AND ${ident('location_id')} <> ${s.values.location_id}`,
    );
    const n = Number(row?.n ?? 0);
    if (n) return { location: [`${n} devices are assigned as hosts for this cluster but belong to a location other than "${await locationName(w, s.values.location_id)}".`] };
  },
});
