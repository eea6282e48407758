import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';

/** A kind of cluster (VMware vSphere, Proxmox VE): every cluster names one. */
export const clusterTypeResource = defineResource({
  app: 'virtualization',
  model: 'clustertype',
  slug: 'cluster-types',
  verboseName: 'cluster type',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255 }),
    cluster_count: field.count('virtualization.cluster', 'cluster_type'),
  },
  features: ['customFields', 'notes'],
});

/** An organisational group of clusters (a region's, a team's). */
export const clusterGroupResource = defineResource({
  app: 'virtualization',
  model: 'clustergroup',
  slug: 'cluster-groups',
  verboseName: 'cluster group',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255 }),
    cluster_count: field.count('virtualization.cluster', 'cluster_group'),
  },
  features: ['customFields', 'notes'],
});
