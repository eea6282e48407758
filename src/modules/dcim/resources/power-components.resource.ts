import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { FEED_LEGS, POWER_OUTLET_TYPES, POWER_PORT_TYPES } from '../component-choices';
import { deviceComponent, sameDevice } from './device-component';

/** Power ports (intakes) and power outlets of a device. */
export const powerPortResource = defineResource({
  app: 'dcim',
  model: 'powerport',
  slug: 'power-ports',
  verboseName: 'power port',
  mixins: [deviceComponent()],
  fields: {
    type: field.choice(POWER_PORT_TYPES, { maxLength: 50, help: 'Physical port type' }),
    maximum_draw: field.integer({ nullable: true, minValue: 1, maxValue: 32767, help: 'Maximum power draw (watts)' }),
    allocated_draw: field.integer({ nullable: true, minValue: 1, maxValue: 32767, help: 'Allocated power draw (watts)' }),
    power_factor: field.decimal({
      maxDigits: 4,
      decimalPlaces: 2,
      default: '0.95',
      minValue: 0.01,
      maxValue: 1,
      help: 'Power factor (0.01-1.00) for converting between watts (W) and volt-amps (VA). Defaults to 0.95.',
    }),
  },
  rules(s) {
    const { maximum_draw: max, allocated_draw: allocated } = s.values;
    if (max !== null && max !== undefined && allocated !== null && allocated !== undefined && Number(allocated) > Number(max)) {
      return { allocated_draw: [`Allocated draw cannot exceed the maximum draw (${max}W).`] };
    }
  },
});

export const powerOutletResource = defineResource({
  app: 'dcim',
  model: 'poweroutlet',
  slug: 'power-outlets',
  verboseName: 'power outlet',
  mixins: [deviceComponent()],
  fields: {
    type: field.choice(POWER_OUTLET_TYPES, { maxLength: 50, help: 'Physical port type' }),
    power_port: field.foreignKey(() => powerPortResource, { nullable: true, onDelete: 'setNull', relatedName: 'power_outlets' }),
    feed_leg: field.choice(FEED_LEGS, { maxLength: 50, help: 'Phase (for three-phase feeds)' }),
  },
  rules: (s) => sameDevice(s, 'power_port', (port) => `Parent power port (${port}) must belong to the same device`),
});
