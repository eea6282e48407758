import { defineResource, ResourceDefinition } from '../../../core/resource/definition';
import { link, LinkEnd } from '../../../core/resource/mixin';
import { locationResource } from '../../dcim/resources/location.resource';
import { prefixResource } from './prefix.resource';
import { vlanResource } from './vlan.resource';

/**
 * Which locations an object is available at, one object per link: the through model of
 * `<model>.locations` (the reference's PrefixLocationAssignment, VLANLocationAssignment). Writing
 * an object's `locations` makes and removes these; they can also be made and removed here.
 */
function locationAssignment(owner: 'prefix' | 'vlan', target: () => ResourceDefinition, shows: LinkEnd['shows']) {
  const verbose = `${owner === 'vlan' ? 'VLAN' : owner} location assignment`;
  return defineResource({
    app: 'ipam',
    model: `${owner}locationassignment`,
    slug: `${owner}-location-assignments`,
    // Read by a location's counts: kept with its detail (serialize/kept-values.ts).
    watched: true,
    verboseName: verbose,
    verboseNamePlural: `${verbose}s`,
    mixins: [
      link(
        { name: owner, target, relatedName: 'location_assignments', shows },
        { name: 'location', target: () => locationResource, relatedName: `${owner}_assignments`, tree: true },
      ),
    ],
    fields: {},
    search: ['location__name'],
  });
}

export const prefixLocationAssignmentResource = locationAssignment('prefix', () => prefixResource, { columns: ['network_text', 'prefix_length'], text: (p) => `${p.network_text}/${p.prefix_length}` });
export const vlanLocationAssignmentResource = locationAssignment('vlan', () => vlanResource, { columns: ['name', 'vid'], text: (v) => `${v.name} (${v.vid})` });
