import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { vrfResource } from './vrf.resource';

/**
 * A VRF present on a device or a virtual machine (exactly one), with the route distinguisher and
 * name it has there (each taken from the VRF when blank): what lets a device's interfaces take
 * the VRF. The reference's virtual device contexts come with their model.
 */
export const vrfDeviceAssignmentResource = defineResource({
  app: 'ipam',
  model: 'vrfdeviceassignment',
  slug: 'vrf-device-assignments',
  verboseName: 'VRF-device assignment',
  verboseNamePlural: 'VRF-device assignments',
  className: 'VRFDeviceAssignment',
  naturalKey: ['vrf', 'device'],
  ordering: ['vrf', 'created'],
  // "<vrf> [<device>] (rd: <rd>, name: <name>)", as the reference names one.
  display: (r, h) => `${h.related('vrf')?.name ?? ''} [${(h.related('device') ?? h.related('virtual_machine'))?.name ?? ''}] (rd: ${r.rd ?? 'None'}, name: ${r.name})`,
  displayUses: { vrf: ['name'], device: ['name'], virtual_machine: ['name'] },
  fields: {
    vrf: field.foreignKey(() => vrfResource, { required: true, onDelete: 'cascade', relatedName: 'device_assignments' }),
    device: field.foreignKey(model('dcim.device'), { nullable: true, onDelete: 'cascade', relatedName: 'vrf_assignments' }),
    virtual_machine: field.foreignKey(model('virtualization.virtualmachine'), { nullable: true, onDelete: 'cascade', relatedName: 'vrf_assignments' }),
    rd: field.string({ nullable: true, maxLength: 21, label: 'Route distinguisher', help: 'Unique route distinguisher (as defined in RFC 4364)' }),
    name: field.string({ maxLength: 255 }),
  },
  // The serializer's validators name the object first ("The fields device, vrf must make a unique set.").
  uniqueTogether: [
    { fields: ['vrf', 'device'], message: 'The fields device, vrf must make a unique set.' },
    { fields: ['vrf', 'virtual_machine'], message: 'The fields virtual_machine, vrf must make a unique set.' },
  ],
  rules(s) {
    if (s.values.device_id && s.values.virtual_machine_id) return { __all__: ['A VRFDeviceAssignment entry cannot be associated with both a device and a virtual machine.'] };
    if (!s.values.device_id && !s.values.virtual_machine_id) return { __all__: ['A VRFDeviceAssignment entry must be associated with a device, a virtual machine, or a virtual device context.'] };
  },
  /** A blank route distinguisher or name is the VRF's. */
  beforeSave(states) {
    for (const s of states) {
      const vrf = s.related('vrf');
      if (!vrf) continue;
      if (!s.values.rd) s.values.rd = vrf.rd ?? null;
      if (!s.values.name) s.values.name = vrf.name;
    }
  },
  search: ['name', 'rd'],
});
