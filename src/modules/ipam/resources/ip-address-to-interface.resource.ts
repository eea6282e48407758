import { defineResource, model, WriteContext } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { pyRepr } from '../../../core/resource/serialize/references';
import { visibleRows } from '../../../core/resource/query/scope';
import { ident, inList, sql } from '../../../database/sql';
import { DEVICE_PRIMARY_IPS, releasePrimaryIps } from '../mixins';
import { ipAddressResource } from './ip-address.resource';

/** The models an address may be assigned to, by object type: DCIM's interfaces, and virtual machines' (with virtualization). */
export const INTERFACE_TYPES = { interface: 'dcim.interface', vm_interface: 'virtualization.vminterface' } as const;
/** Targets still checked by type through the registry: their models are not installed yet. */
const BY_TYPE = { vm_interface: INTERFACE_TYPES.vm_interface } as const;

const flag = (help: string) => field.boolean({ help });

/**
 * Until the virtual machine interface model is installed, its targets are plain ids checked by type: the
 * registry is asked for the model, and an id of a model that is not installed (or an object
 * the requester may not view) is "not found", as for any related object.
 */
async function existingTargets(w: WriteContext, type: string, ids: string[]): Promise<Set<string>> {
  const def = w.ctx.registry.get(type);
  if (!def || !ids.length) return new Set();
  const visible = await visibleRows(w.ctx, w.exec, def, 'x');
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await w.exec.query<{ id: string }>(sql`SELECT x.${ident('id')} AS ${ident('id')} ${visible.from(inList(ident('x', 'id'), ids.slice(i, i + 1000)))}`);
    rows.forEach((r) => found.add(String(r.id)));
  }
  return found;
}

export const ipAddressToInterfaceResource = defineResource({
  app: 'ipam',
  model: 'ipaddresstointerface',
  slug: 'ip-address-to-interface',
  verboseName: 'IP address assignment',
  className: 'IPAddressToInterface',
  verboseNamePlural: 'IP address assignments',
  naturalKey: ['id'],
  ordering: ['created'],
  // "<address> <device> <interface>", as the reference names an assignment.
  display: (r, h) => {
    const ip = h.related('ip_address');
    const iface = h.related('interface');
    const target = iface ? `${iface.device__name ?? 'No Parent'} ${iface.name}` : (r.vm_interface_id ?? '');
    return `${ip ? `${ip.host_text}/${ip.mask_length}` : r.ip_address_id} ${target}`.trim();
  },
  displayUses: { ip_address: ['host_text', 'mask_length'], interface: ['name', 'device__name'] },
  fields: {
    ip_address: field.foreignKey(() => ipAddressResource, { required: true, onDelete: 'cascade' }),
    interface: field.foreignKey(model(INTERFACE_TYPES.interface), { nullable: true, onDelete: 'cascade', relatedName: 'ip_address_assignments' }),
    vm_interface: field.uuid({ nullable: true, index: true, help: `A ${INTERFACE_TYPES.vm_interface} id`, column: 'vm_interface_id' }),
    is_source: flag('Is source address on interface'),
    is_destination: flag('Is destination address on interface'),
    is_default: flag('Is default address on interface'),
    is_preferred: flag('Is preferred address on interface'),
    is_primary: flag('Is primary address on interface'),
    is_secondary: flag('Is secondary address on interface'),
    is_standby: flag('Is standby address on interface'),
  },
  uniqueTogether: [{ fields: ['ip_address', 'interface'] }, { fields: ['ip_address', 'vm_interface'] }],
  search: [],
  rules(s) {
    const errors: FieldErrors = {};
    const iface = s.values.interface_id;
    const vmIface = s.values.vm_interface_id;
    if (iface && vmIface) errors.interface = ['Cannot use a single instance to associate to both an Interface and a VMInterface.'];
    else if (!iface && !vmIface) errors.interface = ['Must associate to either an Interface or a VMInterface.'];
    return errors;
  },
  /** A device whose primary IP loses its last assignment to the device loses it as primary. */
  beforeDelete: (rows, w) => releasePrimaryIps(w.exec, DEVICE_PRIMARY_IPS, rows.filter((r) => r.interface_id).map((r) => String(r.id))),
  /** The targets of the whole batch, one statement per interface type. */
  async validateBatch(states, w) {
    const errors: FieldErrors[] = states.map(() => ({}));
    for (const [name, type] of Object.entries(BY_TYPE)) {
      const wanted = (s: (typeof states)[number]) => (s.touched.has(name) && s.values[`${name}_id`] ? String(s.values[`${name}_id`]) : null);
      const found = await existingTargets(w, type, [...new Set(states.map(wanted).filter((x): x is string => !!x))]);
      states.forEach((s, i) => {
        const id = wanted(s);
        if (id && !found.has(id)) errors[i][name] = [`Related object not found using the provided attributes: ${pyRepr({ pk: id })}`];
      });
    }
    return errors;
  },
});
