import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { locationFields} from './common';
import { inVidRanges, parseVidRanges, VID_MAX, VID_MIN, vlanGroupResource } from './vlan-group.resource';

export const vlanResource = defineResource({
  app: 'ipam',
  model: 'vlan',
  // Read by a location's counts or every model's tags: kept with a detail (serialize/kept-values.ts).
  watched: true,
  slug: 'vlans',
  verboseName: 'VLAN',
  verboseNamePlural: 'VLANs',
  naturalKey: ['id'],
  ordering: ['vlan_group', 'vid'],
  display: (r) => `${r.name} (${r.vid})`,
  mixins: [statusMixin(), roleMixin(), tenancyMixin()],
  fields: {
    vid: field.integer({ required: true, index: true, minValue: VID_MIN, maxValue: VID_MAX, label: 'ID' }),
    name: field.string({ required: true, maxLength: 255, index: true }),
    description: field.string({ maxLength: 255 }),
    vlan_group: field.foreignKey(() => vlanGroupResource, { nullable: true, onDelete: 'protect' }),
    ...locationFields('ipam_vlanlocationassignment', 'vlan_id'),
    prefix_count: field.count('ipam.prefix', 'vlan'),
  },
  uniqueTogether: [{ fields: ['vlan_group', 'vid'] }, { fields: ['vlan_group', 'name'] }],
  search: ['name', 'description'],
  features: ['tags', 'customFields', 'notes', 'locations'],
  rules(s) {
    const group = s.related('vlan_group');
    if (!group || !(s.touched.has('vid') || s.touched.has('vlan_group'))) return;
    const ranges = parseVidRanges(String(group.range));
    if (ranges && !inVidRanges(ranges, Number(s.values.vid))) return { vid: [`VLAN ID is not contained in VLAN Group range (${group.range})`] };
  },
});
