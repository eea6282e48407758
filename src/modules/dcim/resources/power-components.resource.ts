import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { powerDraw } from '../power-draw';
import { FEED_LEGS, POWER_OUTLET_TYPES, POWER_PORT_TYPES } from '../component-choices';
import { cableTermination, pathEndpoint } from '../cabling/terminations';
import { deviceComponent, sameDevice } from './device-component';

/** Power ports (intakes) and power outlets of a device. */
export const powerPortResource = defineResource({
  app: 'dcim',
  model: 'powerport',
  slug: 'power-ports',
  verboseName: 'power port',
  mixins: [deviceComponent({ module: 'module' }), cableTermination(), pathEndpoint(), powerDraw()],
  fields: {
    type: field.choice(POWER_PORT_TYPES, { maxLength: 50, help: 'Physical port type' }),
  },
});

export const powerOutletResource = defineResource({
  app: 'dcim',
  model: 'poweroutlet',
  slug: 'power-outlets',
  verboseName: 'power outlet',
  mixins: [deviceComponent({ module: 'module' }), cableTermination(), pathEndpoint()],
  fields: {
    type: field.choice(POWER_OUTLET_TYPES, { maxLength: 50, help: 'Physical port type' }),
    power_port: field.foreignKey(() => powerPortResource, { nullable: true, onDelete: 'setNull', relatedName: 'power_outlets' }),
    feed_leg: field.choice(FEED_LEGS, { maxLength: 50, help: 'Phase (for three-phase feeds)' }),
  },
  rules: (s, w) => sameDevice(s, w, 'power_port', (port) => `Parent power port (${port}) must belong to the same device`),
});
