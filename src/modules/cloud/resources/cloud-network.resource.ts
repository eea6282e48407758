import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { prefixResource } from '../../ipam/resources/prefix.resource';
import { ident, sql } from '../../../database/sql';
import { cloudResourceTypeMixin } from '../mixins';
import { prefixFilter } from '../prefix-filter';
import { cloudAccountResource } from './cloud-account.resource';

/**
 * A network in a cloud account (a VPC, a VNET, a subnet of one): at most two levels deep (a
 * parent may not have a parent of its own), holding prefixes through its prefix assignments.
 */
export const cloudNetworkResource = defineResource({
  app: 'cloud',
  model: 'cloudnetwork',
  slug: 'cloud-networks',
  verboseName: 'cloud network',
  mixins: [named(255), cloudResourceTypeMixin()],
  fields: {
    description: field.string({ maxLength: 255 }),
    cloud_account: field.foreignKey(() => cloudAccountResource, { required: true, onDelete: 'protect', relatedName: 'cloud_networks' }),
    parent: field.foreignKey(() => cloudNetworkResource, { nullable: true, onDelete: 'protect', relatedName: 'children' }),
    prefixes: field.manyToMany(() => prefixResource, { table: 'cloud_cloudnetworkprefixassignment', source: 'cloud_network_id', target: 'prefix_id' }, { readOnly: true, relatedName: 'cloud_networks' }),
  },
  filters: {
    // By prefix UUID or text, through the network's prefix assignments the requester may view.
    prefixes: prefixFilter(
      async (h, ids) =>
        sql`EXISTS (SELECT 1 ${(await h.rows(model('cloud.cloudnetworkprefixassignment')(), 'cpa')).from(sql`${ident('cpa', 'cloud_network_id')} = ${h.col('id')}`, sql`${ident('cpa', 'prefix_id')} IN ${ids}`)})`,
    ),
  },
  search: ['description', 'parent__name', 'parent__description', 'cloud_account__name', 'cloud_account__description', 'cloud_resource_type__name', 'cloud_resource_type__description'],
  features: ['tags', 'customFields', 'notes'],
  rules(s) {
    if (!s.values.parent_id) return;
    const parent = s.related('parent');
    if (parent?.parent_id) return { parent: ['A CloudNetwork may not be the child of a CloudNetwork that itself has a parent.'] };
    if (s.existing && String(s.values.parent_id) === String(s.existing.id)) return { parent: ['A CloudNetwork may not be its own parent.'] };
  },
});
