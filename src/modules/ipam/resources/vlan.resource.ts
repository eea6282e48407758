import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { Vlan } from '../entities/vlan.entity';
import { locationFields, roleField, statusField, tenantField } from './common';
import { inVidRanges, parseVidRanges, VID_MAX, VID_MIN, vlanGroupResource } from './vlan-group.resource';

export const vlanResource = defineResource({
  app: 'ipam',
  model: 'vlan',
  slug: 'vlans',
  table: 'ipam_vlan',
  entity: Vlan,
  verboseName: 'VLAN',
  verboseNamePlural: 'VLANs',
  naturalKey: ['id'],
  ordering: ['vlan_group', 'vid'],
  display: (r) => `${r.name} (${r.vid})`,
  fields: {
    vid: field.integer({ required: true, minValue: VID_MIN, maxValue: VID_MAX, label: 'ID' }),
    name: field.string({ required: true }),
    description: field.string(),
    vlan_group: field.foreignKey(() => vlanGroupResource, { nullable: true, onDelete: 'protect' }),
    status: statusField(),
    role: roleField(),
    tenant: tenantField(),
    ...locationFields('ipam_vlanlocationassignment', 'vlan_id'),
    prefix_count: field.count('ipam.prefix', 'vlan'),
  },
  uniqueTogether: [{ fields: ['vlan_group', 'vid'] }, { fields: ['vlan_group', 'name'] }],
  search: ['name', 'description'],
  features: ['tags', 'customFields', 'notes', 'statuses', 'roles', 'locations'],
  rules(s) {
    const group = s.related('vlan_group');
    if (!group || !(s.touched.has('vid') || s.touched.has('vlan_group'))) return;
    const ranges = parseVidRanges(String(group.range));
    if (ranges && !inVidRanges(ranges, Number(s.values.vid))) return { vid: [`VLAN ID is not contained in VLAN Group range (${group.range})`] };
  },
});
