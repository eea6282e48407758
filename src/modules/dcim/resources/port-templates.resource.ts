import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { CONSOLE_PORT_TYPES, PORT_TYPES, REAR_PORT_POSITIONS } from '../component-choices';
import { componentTemplate, sameDeviceType } from './component-template';

/** Console and pass-through port templates of a device type (Nautobot's dcim/models/device_component_templates.py). */
export const consolePortTemplateResource = defineResource({
  app: 'dcim',
  model: 'consoleporttemplate',
  slug: 'console-port-templates',
  verboseName: 'console port template',
  mixins: [componentTemplate()],
  fields: {
    type: field.choice(CONSOLE_PORT_TYPES, { maxLength: 50 }),
  },
});

export const consoleServerPortTemplateResource = defineResource({
  app: 'dcim',
  model: 'consoleserverporttemplate',
  slug: 'console-server-port-templates',
  verboseName: 'console server port template',
  mixins: [componentTemplate()],
  fields: {
    type: field.choice(CONSOLE_PORT_TYPES, { maxLength: 50 }),
  },
});

export const rearPortTemplateResource = defineResource({
  app: 'dcim',
  model: 'rearporttemplate',
  slug: 'rear-port-templates',
  verboseName: 'rear port template',
  mixins: [componentTemplate()],
  fields: {
    type: field.choice(PORT_TYPES, { required: true, maxLength: 50 }),
    positions: field.integer({ default: 1, minValue: REAR_PORT_POSITIONS.min, maxValue: REAR_PORT_POSITIONS.max }),
  },
});

export const frontPortTemplateResource = defineResource({
  app: 'dcim',
  model: 'frontporttemplate',
  slug: 'front-port-templates',
  verboseName: 'front port template',
  mixins: [componentTemplate()],
  fields: {
    type: field.choice(PORT_TYPES, { required: true, maxLength: 50 }),
    rear_port_template: field.foreignKey(() => rearPortTemplateResource, { required: true, onDelete: 'cascade' }),
    rear_port_position: field.integer({ default: 1, minValue: REAR_PORT_POSITIONS.min, maxValue: REAR_PORT_POSITIONS.max }),
  },
  uniqueTogether: [{ fields: ['rear_port_template', 'rear_port_position'] }],
  rules(s) {
    const other = sameDeviceType(s, 'rear_port_template', (rear, parent) => `Rear port (${rear}) must belong to the same ${parent}`);
    if (other) return other;
    const rear = s.related('rear_port_template');
    const position = Number(s.values.rear_port_position);
    if (rear && position > Number(rear.positions)) {
      return { __all__: [`Invalid rear port position (${position}); rear port ${rear.name} has only ${rear.positions} positions`] };
    }
  },
});

