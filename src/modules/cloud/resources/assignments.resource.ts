import { defineResource } from '../../../core/resource/definition';
import { link } from '../../../core/resource/mixin';
import { prefixResource } from '../../ipam/resources/prefix.resource';
import { sql } from '../../../database/sql';
import { prefixFilter } from '../prefix-filter';
import { cloudNetworkResource } from './cloud-network.resource';
import { cloudServiceResource } from './cloud-service.resource';

/** Which prefixes a cloud network holds, one object per link (the through model of its `prefixes`). */
export const cloudNetworkPrefixAssignmentResource = defineResource({
  app: 'cloud',
  model: 'cloudnetworkprefixassignment',
  slug: 'cloud-network-prefix-assignments',
  verboseName: 'cloud network prefix assignment',
  mixins: [
    link(
      { name: 'cloud_network', target: () => cloudNetworkResource, relatedName: 'prefix_assignments' },
      { name: 'prefix', target: () => prefixResource, relatedName: 'cloud_network_assignments', shows: { columns: ['network_text', 'prefix_length'], text: (p) => `${p.network_text}/${p.prefix_length}` } },
    ),
  ],
  fields: {},
  filters: { prefix: prefixFilter((h, ids) => sql`${h.col('prefix_id')} IN ${ids}`) },
  search: ['cloud_network__name', 'cloud_network__description'],
});

/** Which cloud networks a cloud service is on, one object per link (the through model of its `cloud_networks`). */
export const cloudServiceNetworkAssignmentResource = defineResource({
  app: 'cloud',
  model: 'cloudservicenetworkassignment',
  slug: 'cloud-service-network-assignments',
  verboseName: 'cloud service network assignment',
  mixins: [
    link(
      { name: 'cloud_network', target: () => cloudNetworkResource, relatedName: 'cloud_service_assignments' },
      { name: 'cloud_service', target: () => cloudServiceResource, relatedName: 'cloud_network_assignments' },
    ),
  ],
  fields: {},
  search: [
    'cloud_network__name',
    'cloud_network__description',
    'cloud_network__cloud_account__name',
    'cloud_network__cloud_account__description',
    'cloud_network__cloud_resource_type__name',
    'cloud_network__cloud_resource_type__description',
    'cloud_service__name',
    'cloud_service__description',
    'cloud_service__cloud_account__name',
    'cloud_service__cloud_account__description',
    'cloud_service__cloud_resource_type__name',
    'cloud_service__cloud_resource_type__description',
  ],
});
