import { randomUUID } from 'node:crypto';
import type { ResourceDefinition, WriteContext } from '../../core/resource/definition';
import { ValidationError } from '../../core/resource/errors';
import { unscoped } from '../../core/resource/query/rows';
import { deriveObjects } from '../../core/resource/resource-writer';
import type { Row } from '../../database/db';
import { ident, inList, sql } from '../../database/sql';
import { deviceBayTemplateResource, moduleBayTemplateResource } from './resources/bay-templates.resource';
import { deviceBayResource, moduleBayResource } from './resources/bays.resource';
import { interfaceTemplateResource } from './resources/interface-template.resource';
import { interfaceResource } from './resources/interface.resource';
import { consolePortTemplateResource, consoleServerPortTemplateResource, frontPortTemplateResource, rearPortTemplateResource } from './resources/port-templates.resource';
import { consolePortResource, consoleServerPortResource, frontPortResource, rearPortResource } from './resources/ports.resource';
import { powerOutletResource, powerPortResource } from './resources/power-components.resource';
import { powerOutletTemplateResource, powerPortTemplateResource } from './resources/power-templates.resource';

/** What a new component takes from its template besides name, label and description, given the ids of components made before it on the same device. */
type Copy = (template: Row, made: (templateId: unknown) => string | null, extra: Row) => Row;

interface Kind {
  template: ResourceDefinition;
  component: ResourceDefinition;
  copy: Copy;
  /** The component's foreign key to its device (a module bay's is `parent_device`). */
  device?: string;
}

/**
 * The components a device gets from its type's templates, in the reference's order: power
 * outlets after the power ports they point at, front ports after their rear ports.
 */
const KINDS: Kind[] = [
  { template: consolePortTemplateResource, component: consolePortResource, copy: (t) => ({ type: t.type }) },
  { template: consoleServerPortTemplateResource, component: consoleServerPortResource, copy: (t) => ({ type: t.type }) },
  {
    template: powerPortTemplateResource,
    component: powerPortResource,
    copy: (t) => ({ type: t.type, maximum_draw: t.maximum_draw, allocated_draw: t.allocated_draw, power_factor: t.power_factor }),
  },
  { template: powerOutletTemplateResource, component: powerOutletResource, copy: (t, made) => ({ type: t.type, feed_leg: t.feed_leg, power_port_id: made(t.power_port_template_id) }) },
  {
    template: interfaceTemplateResource,
    component: interfaceResource,
    copy: (t, _made, extra) => ({ type: t.type, mgmt_only: t.mgmt_only, speed: t.speed, duplex: t.duplex, status_id: extra.interfaceStatus }),
  },
  { template: rearPortTemplateResource, component: rearPortResource, copy: (t) => ({ type: t.type, positions: t.positions }) },
  { template: frontPortTemplateResource, component: frontPortResource, copy: (t, made) => ({ type: t.type, rear_port_id: made(t.rear_port_template_id), rear_port_position: t.rear_port_position }) },
  { template: deviceBayTemplateResource, component: deviceBayResource, copy: () => ({}) },
  { template: moduleBayTemplateResource, component: moduleBayResource, copy: (t) => ({ position: t.position, requires_first_party_modules: t.requires_first_party_modules }), device: 'parent_device' },
];

/** The status new interfaces get: Active, or else the first enabled for interfaces (as the reference picks it). */
async function interfaceStatus(w: WriteContext): Promise<string | null> {
  const rows = await w.exec.query<{ id: string; name: string }>(
    sql`SELECT s.${ident('id')} AS ${ident('id')}, s.${ident('name')} AS ${ident('name')} FROM ${ident('extras_status')} s
        JOIN ${ident('extras_status_content_types')} c ON c.${ident('status_id')} = s.${ident('id')}
        WHERE c.${ident('content_type')} = ${'dcim.interface'} ORDER BY s.${ident('name')}`,
  );
  return String((rows.find((r) => r.name === 'Active') ?? rows[0])?.id ?? '') || null;
}

/**
 * Components for new devices from their device types' templates, in the device's transaction:
 * one read of each template table for the whole batch and one batched insert per component
 * kind, however many devices (Nautobot's Device.create_components).
 */
export async function instantiateComponents(w: WriteContext, devices: { id: string; deviceTypeId: string }[]): Promise<void> {
  if (!devices.length) return;
  const typeIds = [...new Set(devices.map((d) => d.deviceTypeId))];
  const madeBy = new Map<string, string>(); // `${device}:${template}` -> component id
  const extra: Row = {};
  for (const kind of KINDS) {
    // Every template of the type makes its component, whoever may view the templates.
    const templates = await w.exec.query(sql`SELECT * ${unscoped(kind.template).from(inList(ident('device_type_id'), typeIds))} ORDER BY ${ident('_name')}`);
    if (!templates.length) continue;
    if (kind.component === interfaceResource && !('interfaceStatus' in extra)) {
      extra.interfaceStatus = await interfaceStatus(w);
      if (!extra.interfaceStatus) throw new ValidationError({ device_type: ['Its interface templates cannot be instantiated: no status is enabled for interfaces (dcim.interface).'] });
    }
    const byType = new Map<string, Row[]>();
    for (const t of templates) byType.set(String(t.device_type_id), [...(byType.get(String(t.device_type_id)) ?? []), t]);
    const rows: Row[] = [];
    for (const d of devices) {
      for (const t of byType.get(d.deviceTypeId) ?? []) {
        const id = randomUUID();
        madeBy.set(`${d.id}:${t.id}`, id);
        const made = (templateId: unknown) => (templateId ? (madeBy.get(`${d.id}:${templateId}`) ?? null) : null);
        rows.push({ id, [`${kind.device ?? 'device'}_id`]: d.id, name: t.name, label: t.label, description: t.description, ...kind.copy(t, made, extra) });
      }
    }
    await deriveObjects(w, kind.component, rows);
  }
}
