import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { powerDraw } from '../power-draw';
import { FEED_LEGS, POWER_OUTLET_TYPES, POWER_PORT_TYPES } from '../component-choices';
import { componentTemplate, sameDeviceType } from './component-template';

/** Power port and power outlet templates of a device type. */
export const powerPortTemplateResource = defineResource({
  app: 'dcim',
  model: 'powerporttemplate',
  slug: 'power-port-templates',
  verboseName: 'power port template',
  mixins: [componentTemplate(), powerDraw()],
  fields: {
    type: field.choice(POWER_PORT_TYPES, { maxLength: 50 }),
  },
});

export const powerOutletTemplateResource = defineResource({
  app: 'dcim',
  model: 'poweroutlettemplate',
  slug: 'power-outlet-templates',
  verboseName: 'power outlet template',
  mixins: [componentTemplate()],
  fields: {
    type: field.choice(POWER_OUTLET_TYPES, { maxLength: 50 }),
    power_port_template: field.foreignKey(() => powerPortTemplateResource, { nullable: true, onDelete: 'setNull' }),
    feed_leg: field.choice(FEED_LEGS, { maxLength: 50, help: 'Phase (for three-phase feeds)' }),
  },
  rules: (s) => sameDeviceType(s, 'power_port_template', (port, parent) => `Parent power port (${port}) must belong to the same ${parent}`),
});
