import { defineResource, ResourceDefinition } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import type { Row } from '../../../database/db';
import { locationResource } from '../../dcim/resources/location.resource';
import { prefixResource } from './prefix.resource';
import { vlanResource } from './vlan.resource';

/**
 * Which locations an object is available at, one object per link: the through model of
 * `<model>.locations` (the reference's PrefixLocationAssignment, VLANLocationAssignment). Writing
 * an object's `locations` makes and removes these; they can also be made and removed here.
 */
function locationAssignment(owner: 'prefix' | 'vlan', target: () => ResourceDefinition, label: (r: Row) => string, columns: string[]) {
  const verbose = `${owner === 'vlan' ? 'VLAN' : owner} location assignment`;
  return defineResource({
    app: 'ipam',
    model: `${owner}locationassignment`,
    slug: `${owner}-location-assignments`,
    verboseName: verbose,
    verboseNamePlural: `${verbose}s`,
    naturalKey: [owner, 'location'],
    ordering: [owner, 'location'],
    display: (_r, h) => `${label(h.related(owner) ?? {})}: ${h.related('location')?.name ?? ''}`,
    displayUses: { [owner]: columns, location: ['name'] },
    fields: {
      [owner]: field.foreignKey(target, { required: true, onDelete: 'cascade', relatedName: 'location_assignments' }),
      location: field.foreignKey(() => locationResource, { required: true, onDelete: 'cascade', tree: true, relatedName: `${owner}_assignments` }),
    },
    uniqueTogether: [{ fields: [owner, 'location'] }],
    search: ['location__name'],
  });
}

export const prefixLocationAssignmentResource = locationAssignment('prefix', () => prefixResource, (p) => `${p.network_text ?? ''}/${p.prefix_length ?? ''}`, ['network_text', 'prefix_length']);
export const vlanLocationAssignmentResource = locationAssignment('vlan', () => vlanResource, (v) => `${v.name ?? ''} (${v.vid ?? ''})`, ['name', 'vid']);
