import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { networkDriverMappings } from '../network-drivers';
import { manufacturerResource } from './manufacturer.resource';

/** The software a device or virtual machine runs (Cisco IOS-XR, Junos), and how tools talk to it. */
export const platformResource = defineResource({
  app: 'dcim',
  model: 'platform',
  // Nested at depth 1 by many models: its objects are kept between requests (serialize/kept-nested.ts).
  watched: true,
  slug: 'platforms',
  mixins: [named(255)],
  fields: {
    manufacturer: field.foreignKey(() => manufacturerResource, { nullable: true, onDelete: 'protect', help: 'Optionally limit this platform to devices of a certain manufacturer' }),
    network_driver: field.string({
      maxLength: 255,
      help: 'The normalized network driver to use when interacting with devices, e.g. cisco_ios, arista_eos, etc. Library-specific driver names will be derived from this setting as appropriate',
    }),
    network_driver_mappings: field.computed(['network_driver'], { type: 'object', additionalProperties: { type: 'string' } }, (r) => networkDriverMappings(r.network_driver)),
    napalm_driver: field.string({ maxLength: 255, label: 'NAPALM driver', help: 'The name of the NAPALM driver to use when Nautobot internals interact with devices' }),
    napalm_args: field.json({ nullable: true, filter: true, label: 'NAPALM arguments', help: 'Additional arguments to pass when initiating the NAPALM driver (JSON format)' }),
    description: field.string({ maxLength: 255 }),
    device_count: field.count('dcim.device', 'platform'),
    virtual_machine_count: field.count('virtualization.virtualmachine', 'platform'),
  },
  features: ['customFields', 'notes'],
});
