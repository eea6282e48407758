import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { prefixResource } from './prefix.resource';
import { vrfResource } from './vrf.resource';

/** Which prefixes a VRF holds (the through table of VRF.prefixes / Prefix.vrfs). */
export const vrfPrefixAssignmentResource = defineResource({
  app: 'ipam',
  model: 'vrfprefixassignment',
  slug: 'vrf-prefix-assignments',
  verboseName: 'VRF prefix assignment',
  verboseNamePlural: 'VRF prefix assignments',
  naturalKey: ['vrf', 'prefix'],
  ordering: ['vrf', 'created'],
  display: (_r, h) => {
    const p = h.related('prefix');
    return `${h.related('vrf')?.name ?? ''}: ${p ? `${p.network_text}/${p.prefix_length}` : ''}`;
  },
  displayUses: { vrf: ['name'], prefix: ['network_text', 'prefix_length'] },
  fields: {
    vrf: field.foreignKey(() => vrfResource, { required: true, onDelete: 'cascade' }),
    prefix: field.foreignKey(() => prefixResource, { required: true, onDelete: 'cascade' }),
  },
  uniqueTogether: [{ fields: ['vrf', 'prefix'] }],
  rules(s) {
    const vrf = s.related('vrf');
    const prefix = s.related('prefix');
    if (vrf && prefix && String(vrf.namespace_id) !== String(prefix.namespace_id)) {
      return { prefix: ['Prefix must be in the same namespace as the VRF.'] };
    }
  },
  search: [],
});
