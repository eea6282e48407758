import { newId } from '../../core/ids';
import type { ResourceDefinition, WriteContext } from '../../core/resource/definition';
import { ValidationError } from '../../core/resource/errors';
import { unscoped } from '../../core/resource/query/rows';
import { deriveObjects } from '../../core/resource/resource-writer';
import type { Row } from '../../database/db';
import { ident, inList, sql } from '../../database/sql';
import { modulePlaces, renderModuleName } from './module-tree';
import { deviceBayTemplateResource, moduleBayTemplateResource } from './resources/bay-templates.resource';
import { deviceBayResource, moduleBayResource } from './resources/bays.resource';
import { interfaceTemplateResource } from './resources/interface-template.resource';
import { interfaceResource } from './resources/interface.resource';
import { consolePortTemplateResource, consoleServerPortTemplateResource, frontPortTemplateResource, rearPortTemplateResource } from './resources/port-templates.resource';
import { consolePortResource, consoleServerPortResource, frontPortResource, rearPortResource } from './resources/ports.resource';
import { powerOutletResource, powerPortResource } from './resources/power-components.resource';
import { powerOutletTemplateResource, powerPortTemplateResource } from './resources/power-templates.resource';

/** What a new component takes from its template besides name, label and description, given the ids of components made before it on the same owner. */
type Copy = (template: Row, made: (templateId: unknown) => string | null, extra: Row) => Row;

interface Kind {
  template: ResourceDefinition;
  component: ResourceDefinition;
  copy: Copy;
  /** The component's foreign keys to its device and to its module (a module bay's are `parent_device`, `parent_module`); no module: devices only. */
  device?: string;
  module?: string | null;
}

/**
 * The components a device or module gets from its type's templates, in the reference's order:
 * power outlets after the power ports they point at, front ports after their rear ports.
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
  { template: deviceBayTemplateResource, component: deviceBayResource, copy: () => ({}), module: null },
  {
    template: moduleBayTemplateResource,
    component: moduleBayResource,
    copy: (t) => ({ position: t.position, module_family_id: t.module_family_id, requires_first_party_modules: t.requires_first_party_modules }),
    device: 'parent_device',
    module: 'parent_module',
  },
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

/** A new device or module and its type (device type or module type). */
export interface Owner {
  id: string;
  typeId: string;
}

/**
 * Components for new devices (from their device types' templates) or new modules (from their
 * module types'), in the owner's transaction: one read of each template table for the whole
 * batch and one batched insert per component kind, however many owners (Nautobot's
 * Device.create_components / Module.create_components). A module's components other than its
 * bays get `{module}` in their names replaced by the positions of the bays above it.
 */
export async function instantiateComponents(w: WriteContext, owners: Owner[], of: 'device' | 'module' = 'device'): Promise<void> {
  if (!owners.length) return;
  const typeIds = [...new Set(owners.map((d) => d.typeId))];
  const typeColumn = of === 'device' ? 'device_type_id' : 'module_type_id';
  const madeBy = new Map<string, string>(); // `${owner}:${template}` -> component id
  const extra: Row = {};
  let places: Awaited<ReturnType<typeof modulePlaces>> | undefined;
  for (const kind of KINDS) {
    if (of === 'module' && kind.module === null) continue;
    // Every template of the type makes its component, whoever may view the templates.
    const templates = await w.exec.query(sql`SELECT * ${unscoped(kind.template).from(inList(ident(typeColumn), typeIds))} ORDER BY ${ident('_name')}`);
    if (!templates.length) continue;
    if (kind.component === interfaceResource && !('interfaceStatus' in extra)) {
      extra.interfaceStatus = await interfaceStatus(w);
      if (!extra.interfaceStatus) throw new ValidationError({ [of === 'device' ? 'device_type' : 'module_type']: ['Its interface templates cannot be instantiated: no status is enabled for interfaces (dcim.interface).'] });
    }
    const renders = of === 'module' && kind.component !== moduleBayResource && templates.some((t) => String(t.name).includes('{module'));
    if (renders && !places) places = await modulePlaces(w.exec, owners.map((o) => o.id));
    const byType = new Map<string, Row[]>();
    for (const t of templates) byType.set(String(t[typeColumn]), [...(byType.get(String(t[typeColumn])) ?? []), t]);
    const ownerColumn = `${of === 'device' ? (kind.device ?? 'device') : (kind.module ?? 'module')}_id`;
    const rows: Row[] = [];
    for (const d of owners) {
      for (const t of byType.get(d.typeId) ?? []) {
        const id = newId();
        madeBy.set(`${d.id}:${t.id}`, id);
        const made = (templateId: unknown) => (templateId ? (madeBy.get(`${d.id}:${templateId}`) ?? null) : null);
        const name = renders ? renderModuleName(String(t.name), places?.get(d.id)?.positions ?? []) : t.name;
        rows.push({ id, [ownerColumn]: d.id, name, label: t.label, description: t.description, ...kind.copy(t, made, extra) });
      }
    }
    await deriveObjects(w, kind.component, rows);
  }
}
