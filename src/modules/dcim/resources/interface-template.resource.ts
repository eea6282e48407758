import { defineResource } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { COPPER_TWISTED_PAIR_TYPES, DUPLEX_MODES, INTERFACE_TYPES, VIRTUAL_INTERFACE_TYPES, WIRELESS_INTERFACE_TYPES } from '../component-choices';
import { componentTemplate } from './component-template';

const DUPLEX_VALUES = new Set(DUPLEX_MODES.map(([v]) => String(v)));

/** A data interface every device of a device type gets. */
export const interfaceTemplateResource = defineResource({
  app: 'dcim',
  model: 'interfacetemplate',
  slug: 'interface-templates',
  verboseName: 'interface template',
  mixins: [componentTemplate()],
  fields: {
    type: field.choice(INTERFACE_TYPES, { required: true, maxLength: 50 }),
    mgmt_only: field.boolean({ label: 'Management only' }),
    speed: field.integer({ nullable: true, minValue: 0, maxValue: 2147483647 }),
    // The reference's serializer shows the duplex as its plain value, not as a {value, label} choice.
    duplex: field.string({ maxLength: 10, validate: (v: string) => (v === '' || DUPLEX_VALUES.has(v) ? undefined : `"${v}" is not a valid choice.`) }),
  },
  rules(s): FieldErrors | void {
    const type = String(s.values.type);
    const notPhysical = type === 'lag' || VIRTUAL_INTERFACE_TYPES.has(type) || WIRELESS_INTERFACE_TYPES.has(type);
    if (s.values.speed && notPhysical) return { speed: ['Speed is not applicable to this interface type.'] };
    if (s.values.duplex && notPhysical) return { duplex: ['Duplex is not applicable to this interface type.'] };
    if (s.values.duplex && !COPPER_TWISTED_PAIR_TYPES.has(type)) return { duplex: ['Duplex is only applicable to copper twisted-pair interfaces.'] };
  },
});
