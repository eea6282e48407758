import { defineResource, WriteContext } from '../../../core/resource/definition';
import { ConflictError, FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import type { Row } from '../../../database/db';
import { FALSE, ident, inList, sql } from '../../../database/sql';
import { componentName } from './device-component';
import { deviceResource } from './device.resource';
import { locationResource } from './location.resource';

/** A device as the reference prints it (str(device)): its name, else "<chassis>:<position> (<id>)", else "<manufacturer> <model> (<id>)". */
async function deviceLabel(w: WriteContext, device: Row): Promise<string> {
  if (device.name) return String(device.name);
  const [row] = await w.exec.query<{ vc: string | null; maker: string | null; model: string | null }>(
    sql`SELECT ${ident('vc', 'name')} AS ${ident('vc')}, ${ident('m', 'name')} AS ${ident('maker')}, ${ident('t', 'model')} AS ${ident('model')}
      FROM ${ident('dcim_device')} ${ident('d')}
      LEFT JOIN ${ident('dcim_virtualchassis')} ${ident('vc')} ON ${ident('vc', 'id')} = ${ident('d', 'virtual_chassis_id')}
      LEFT JOIN ${ident('dcim_devicetype')} ${ident('t')} ON ${ident('t', 'id')} = ${ident('d', 'device_type_id')}
      LEFT JOIN ${ident('dcim_manufacturer')} ${ident('m')} ON ${ident('m', 'id')} = ${ident('t', 'manufacturer_id')}
      WHERE ${ident('d', 'id')} = ${device.id}`,
  );
  if (row?.vc) return `${row.vc}:${device.vc_position} (${device.id})`;
  return `${row?.maker ?? ''} ${row?.model ?? ''} (${device.id})`;
}

/**
 * Devices that share a control plane (a switch stack), with one of them as master. Members
 * point here through the device's `virtual_chassis`, each at a position of its own; the master
 * given on create joins the chassis (at position 1 unless it has one), and a chassis deleted
 * leaves its members without chassis, position or priority. A master device is protected from
 * deletion, as the reference's one-to-one master is.
 * A chassis whose members' interfaces form a LAG across member devices is not deleted (409,
 * naming those interfaces, as the reference's protected-objects answer does).
 */
export const virtualChassisResource = defineResource({
  app: 'dcim',
  model: 'virtualchassis',
  slug: 'virtual-chassis',
  verboseName: 'virtual chassis',
  verboseNamePlural: 'virtual chassis',
  mixins: [named(255)],
  fields: {
    member_count: field.count('dcim.device', 'virtual_chassis'),
    master: field.foreignKey(() => deviceResource, { nullable: true, onDelete: 'protect', relatedName: 'vc_master_for' }),
    domain: field.string({ maxLength: 255 }),
  },
  // The reference's master is one-to-one: a device masters one chassis at most.
  uniqueTogether: [{ fields: ['master'], field: 'master', message: 'virtual chassis with this Master already exists.' }],
  search: ['name', 'members__name', 'domain'],
  filterAliases: { tenant: 'master__tenant', tenant_group: 'master__tenant__tenant_group' },
  filters: {
    // The master's own location, not its descendants (as the reference's filter has it).
    location: {
      lookups: ['n'],
      compile: async (values, _lookup, h) => (await h.term('master__location__id', await h.resolveIds(locationResource, values))) ?? FALSE,
    },
  },
  features: ['tags', 'customFields', 'notes'],
  async rules(s, w): Promise<FieldErrors | void> {
    // On update only: a new chassis takes its master in (afterSave).
    const master = s.related('master');
    if (s.create || !master || String(master.virtual_chassis_id ?? '') === String(s.values.id)) return;
    return { master: [`The selected master (${await deviceLabel(w, master)}) is not assigned to this virtual chassis.`] };
  },
  async afterSave(_ids, w, states) {
    const now = w.exec.dialect.toDb(w.ctx.now(), 'datetime');
    for (const s of states) {
      if (!s.create || !s.values.master_id) continue;
      await w.exec.execute(
        sql`UPDATE ${ident('dcim_device')} SET ${ident('virtual_chassis_id')} = ${s.values.id}, ${ident('vc_position')} = COALESCE(${ident('vc_position')}, 1), ${ident('last_updated')} = ${now} WHERE ${ident('id')} = ${s.values.master_id}`,
      );
    }
  },
  async beforeDelete(rows, w) {
    const across = await w.exec.query<{ id: string; name: string; label: string }>(
      sql`SELECT i.${ident('id')} AS ${ident('id')}, i.${ident('name')} AS ${ident('name')}, i.${ident('label')} AS ${ident('label')}
          FROM ${ident('dcim_interface')} i JOIN ${ident('dcim_device')} d ON d.${ident('id')} = i.${ident('device_id')}
          JOIN ${ident('dcim_interface')} l ON l.${ident('id')} = i.${ident('lag_id')}
          WHERE ${inList(ident('d', 'virtual_chassis_id'), rows.map((r) => String(r.id)))} AND l.${ident('device_id')} <> i.${ident('device_id')} ORDER BY i.${ident('id')}`,
    );
    if (across.length) {
      throw new ConflictError(`Unable to delete object. ${across.length} dependent objects were found: ${across.map((i) => `${componentName(i)} (${i.id})`).join(', ')}`);
    }
    const now = w.exec.dialect.toDb(w.ctx.now(), 'datetime');
    await w.exec.execute(
      sql`UPDATE ${ident('dcim_device')} SET ${ident('virtual_chassis_id')} = NULL, ${ident('vc_position')} = NULL, ${ident('vc_priority')} = NULL, ${ident('last_updated')} = ${now} WHERE ${inList(ident('virtual_chassis_id'), rows.map((r) => String(r.id)))}`,
    );
  },
});
