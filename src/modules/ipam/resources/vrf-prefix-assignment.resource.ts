import { defineResource } from '../../../core/resource/definition';
import { link } from '../../../core/resource/mixin';
import { prefixResource } from './prefix.resource';
import { vrfResource } from './vrf.resource';

/** Which prefixes a VRF holds (the through table of VRF.prefixes / Prefix.vrfs). */
export const vrfPrefixAssignmentResource = defineResource({
  app: 'ipam',
  model: 'vrfprefixassignment',
  slug: 'vrf-prefix-assignments',
  verboseName: 'VRF prefix assignment',
  verboseNamePlural: 'VRF prefix assignments',
  mixins: [
    link(
      { name: 'vrf', target: () => vrfResource, relatedName: 'vrf_prefix_assignments' },
      { name: 'prefix', target: () => prefixResource, relatedName: 'vrf_prefix_assignments', shows: { columns: ['network_text', 'prefix_length'], text: (p) => `${p.network_text}/${p.prefix_length}` } },
    ),
  ],
  ordering: ['vrf', 'created'],
  fields: {},
  rules(s) {
    const vrf = s.related('vrf');
    const prefix = s.related('prefix');
    if (vrf && prefix && String(vrf.namespace_id) !== String(prefix.namespace_id)) {
      return { prefix: ['Prefix must be in the same namespace as the VRF.'] };
    }
  },
  search: [],
});
