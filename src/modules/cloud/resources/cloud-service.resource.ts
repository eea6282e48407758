import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { cloudResourceTypeMixin } from '../mixins';
import { cloudAccountResource } from './cloud-account.resource';
import { cloudNetworkResource } from './cloud-network.resource';

/** A service of a cloud provider (a load balancer, an object store), in an account or none, on cloud networks. */
export const cloudServiceResource = defineResource({
  app: 'cloud',
  model: 'cloudservice',
  slug: 'cloud-services',
  verboseName: 'cloud service',
  mixins: [named(255), cloudResourceTypeMixin()],
  fields: {
    description: field.string({ maxLength: 255 }),
    cloud_account: field.foreignKey(() => cloudAccountResource, { nullable: true, onDelete: 'setNull', relatedName: 'cloud_services' }),
    cloud_networks: field.manyToMany(() => cloudNetworkResource, { table: 'cloud_cloudservicenetworkassignment', source: 'cloud_service_id', target: 'cloud_network_id' }, {
      readOnly: true,
      relatedName: 'cloud_services',
    }),
  },
  search: [
    'description',
    'cloud_account__name',
    'cloud_account__description',
    'cloud_networks__name',
    'cloud_networks__description',
    'cloud_resource_type__name',
    'cloud_resource_type__description',
  ],
  features: ['tags', 'customFields', 'notes'],
});
