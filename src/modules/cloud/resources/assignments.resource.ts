import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
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
  naturalKey: ['cloud_network', 'prefix'],
  ordering: ['cloud_network', 'prefix'],
  display: (_r, h) => {
    const p = h.related('prefix');
    return `${h.related('cloud_network')?.name ?? ''}: ${p ? `${p.network_text}/${p.prefix_length}` : ''}`;
  },
  displayUses: { cloud_network: ['name'], prefix: ['network_text', 'prefix_length'] },
  fields: {
    cloud_network: field.foreignKey(() => cloudNetworkResource, { required: true, onDelete: 'cascade', relatedName: 'prefix_assignments' }),
    prefix: field.foreignKey(() => prefixResource, { required: true, onDelete: 'cascade', relatedName: 'cloud_network_assignments' }),
  },
  uniqueTogether: [{ fields: ['cloud_network', 'prefix'] }],
  filters: { prefix: prefixFilter((h, ids) => sql`${h.col('prefix_id')} IN ${ids}`) },
  search: ['cloud_network__name', 'cloud_network__description'],
});

/** Which cloud networks a cloud service is on, one object per link (the through model of its `cloud_networks`). */
export const cloudServiceNetworkAssignmentResource = defineResource({
  app: 'cloud',
  model: 'cloudservicenetworkassignment',
  slug: 'cloud-service-network-assignments',
  verboseName: 'cloud service network assignment',
  naturalKey: ['cloud_network', 'cloud_service'],
  ordering: ['cloud_network', 'cloud_service'],
  display: (_r, h) => `${h.related('cloud_network')?.name ?? ''}: ${h.related('cloud_service')?.name ?? ''}`,
  displayUses: { cloud_network: ['name'], cloud_service: ['name'] },
  fields: {
    cloud_network: field.foreignKey(() => cloudNetworkResource, { required: true, onDelete: 'cascade', relatedName: 'cloud_service_assignments' }),
    cloud_service: field.foreignKey(() => cloudServiceResource, { required: true, onDelete: 'cascade', relatedName: 'cloud_network_assignments' }),
  },
  uniqueTogether: [{ fields: ['cloud_network', 'cloud_service'] }],
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
