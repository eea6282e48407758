import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { ident, sql } from '../../../database/sql';
import { CONSOLE_PORT_TYPES, PORT_TYPES, REAR_PORT_POSITIONS } from '../component-choices';
import { cableTermination, pathEndpoint } from '../cabling/terminations';
import { deviceComponent, sameDevice } from './device-component';

/** Console and pass-through ports of a device (Nautobot's dcim/models/device_components.py). */
export const consolePortResource = defineResource({
  app: 'dcim',
  model: 'consoleport',
  slug: 'console-ports',
  verboseName: 'console port',
  mixins: [deviceComponent({ module: 'module' }), cableTermination(), pathEndpoint()],
  fields: {
    type: field.choice(CONSOLE_PORT_TYPES, { maxLength: 50, help: 'Physical port type' }),
  },
});

export const consoleServerPortResource = defineResource({
  app: 'dcim',
  model: 'consoleserverport',
  slug: 'console-server-ports',
  verboseName: 'console server port',
  mixins: [deviceComponent({ module: 'module' }), cableTermination(), pathEndpoint()],
  fields: {
    type: field.choice(CONSOLE_PORT_TYPES, { maxLength: 50, help: 'Physical port type' }),
  },
});

export const rearPortResource = defineResource({
  app: 'dcim',
  model: 'rearport',
  slug: 'rear-ports',
  verboseName: 'rear port',
  mixins: [deviceComponent({ module: 'module' }), cableTermination()],
  fields: {
    type: field.choice(PORT_TYPES, { required: true, maxLength: 50 }),
    positions: field.integer({ default: 1, minValue: REAR_PORT_POSITIONS.min, maxValue: REAR_PORT_POSITIONS.max }),
  },
  async rules(s, { exec }) {
    if (s.create || !s.touched.has('positions')) return;
    const [{ n }] = await exec.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${ident('dcim_frontport')} WHERE ${ident('rear_port_id')} = ${s.values.id}`);
    if (Number(s.values.positions) < Number(n)) {
      return { positions: [`The number of positions cannot be less than the number of mapped front ports (${Number(n)})`] };
    }
  },
});

export const frontPortResource = defineResource({
  app: 'dcim',
  model: 'frontport',
  slug: 'front-ports',
  verboseName: 'front port',
  mixins: [deviceComponent({ module: 'module' }), cableTermination()],
  fields: {
    type: field.choice(PORT_TYPES, { required: true, maxLength: 50 }),
    rear_port: field.foreignKey(() => rearPortResource, { required: true, onDelete: 'cascade', relatedName: 'front_ports' }),
    rear_port_position: field.integer({ default: 1, minValue: REAR_PORT_POSITIONS.min, maxValue: REAR_PORT_POSITIONS.max }),
  },
  uniqueTogether: [{ fields: ['rear_port', 'rear_port_position'] }],
  async rules(s, w) {
    const other = await sameDevice(s, w, 'rear_port', (rear) => `Rear port (${rear}) must belong to the same device`, 'rear_port');
    if (other) return other;
    const rear = s.related('rear_port');
    const position = Number(s.values.rear_port_position);
    if (rear && position > Number(rear.positions)) {
      return { rear_port_position: [`Invalid rear port position (${position}): Rear port ${rear.name} has only ${rear.positions} positions`] };
    }
  },
});
