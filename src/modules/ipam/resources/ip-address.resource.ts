import { CustomFilter, defineResource, model, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { same } from '../../../core/resource/resource-writer';
import type { Executor, Row } from '../../../database/db';
import { and, FALSE, ident, inList, or, sql } from '../../../database/sql';
import { BITS, formatAddress, IpError, IpVersion, parseCidr } from '../ip';
import { HOST_COLUMNS, lookupFilter, netCondition, networkFilter, parentFilter, searchFilter } from '../network-filters';
import { containingPrefixes, lockNamespaces } from '../parents';
import { familyField } from './common';
import { column } from '../../../database/schema/schema';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { namespaceResource } from './namespace.resource';
import { prefixResource } from './prefix.resource';
import { presentInVrfFilter, vrfFilter } from './vrf-filters';
import { append } from '../../../core/collections';

export const IP_ADDRESS_TYPES = [
  ['dhcp', 'DHCP'],
  ['host', 'Host'],
  ['slaac', 'SLAAC'],
] as const;

/** The roles a first start makes for IP addresses (the reference's former IPAddressRoleChoices). */
export const IP_ADDRESS_ROLES = ['Loopback', 'Secondary', 'Anycast', 'VIP', 'VRRP', 'HSRP', 'GLBP', 'CARP'];

const DNS_NAME = /^([0-9A-Za-z_-]+|\*)(\.[0-9A-Za-z_-]+)*\.?$/;

/** Columns of an address written as `a.b.c.d/len` or bare (a host route); host bits are kept. */
export function addressColumns(value: unknown): Record<string, unknown> | string {
  try {
    const c = parseCidr(value);
    return { host: c.address, mask_length: c.length, ip_version: c.version, host_text: formatAddress(c.version, c.address) };
  } catch (e) {
    if (e instanceof IpError) return e.message;
    throw e;
  }
}

const cidrText = (r: Row) => `${r.network_text}/${r.prefix_length}`;

/** `address`: the exact address (with its mask when given). */
const addressFilter: CustomFilter = {
  compile: (values, _l, h) => {
    const parts = values.map((v) => {
      const s = String(v);
      const cond = netCondition(HOST_COLUMNS, 'net_in', s, h);
      return s.includes('/') ? and([cond, sql`${h.col('mask_length')} = ${parseCidr(s).length}`]) : cond;
    });
    return or(parts);
  },
};

/**
 * The closest parent of every address of a write, found for the whole batch at once: the
 * longest prefix of the namespace that contains the host (the address's own mask plays no
 * part). Sets `parent_id` and `namespace_id`; errors with the reference's texts.
 */
async function placeAddresses(states: WriteState[], w: { exec: Executor }): Promise<FieldErrors[]> {
  const errors: FieldErrors[] = states.map(() => ({}));
  const todo: { i: number; s: WriteState; ns: string }[] = [];
  states.forEach((s, i) => {
    if (!s.create && !['address', 'namespace', 'parent'].some((f) => s.touched.has(f))) return;
    let ns: string | null = null;
    if (s.touched.has('namespace') && s.values.namespace_id) ns = String(s.values.namespace_id);
    else if (s.touched.has('parent') && s.related('parent')) ns = String(s.related('parent')!.namespace_id);
    else if (!s.create) ns = String(s.values.namespace_id);
    if (!ns) errors[i].__all__ = ['One of parent or namespace must be provided'];
    else todo.push({ i, s, ns });
  });
  if (!todo.length) return errors;
  await lockNamespaces(w.exec, todo.map((t) => t.ns), false);
  const groups = new Map<string, typeof todo>();
  for (const t of todo) append(groups, `${t.ns}|${t.s.values.ip_version}`, t);
  const failed: { t: (typeof todo)[number]; closest: Row | null }[] = [];
  for (const list of groups.values()) {
    const version = Number(list[0].s.values.ip_version) as IpVersion;
    const chains = await containingPrefixes(w.exec, list[0].ns, version, list.map((t) => ({ bytes: t.s.values.host, maxLength: BITS[version] })));
    list.forEach((t, k) => {
      const closest = chains[k][0] ?? null;
      const { s } = t;
      const given = s.touched.has('parent') ? s.values.parent_id : null;
      const explicit = given && (s.create || !same(s.existing?.parent_id, given));
      if (!closest || (explicit && String(given) !== String(closest.id))) failed.push({ t, closest });
      else {
        s.values.parent_id = String(closest.id);
        s.values.namespace_id = t.ns;
      }
    });
  }
  if (failed.length) {
    const names = await w.exec.query<{ id: string; name: string }>(
      sql`SELECT ${ident('id')}, ${ident('name')} FROM ${ident('ipam_namespace')} WHERE ${inList(ident('id'), [...new Set(failed.map((f) => f.t.ns))])}`,
    );
    const nameOf = new Map(names.map((n) => [String(n.id), n.name]));
    for (const { t, closest } of failed) {
      const ns = nameOf.get(t.ns);
      const v = t.s.values;
      if (!closest) errors[t.i].namespace = [`No suitable parent Prefix for ${v.host_text} exists in Namespace ${ns}`];
      else {
        const given = t.s.related('parent');
        errors[t.i].parent = [
          `${given ? cidrText(given) : v.parent_id} cannot be assigned as the parent of ${v.host_text}/${v.mask_length}.  In namespace ${ns}, the expected parent would be ${cidrText(closest)}.`,
        ];
      }
    }
  }
  return errors;
}

/**
 * Addresses assigned to an interface of these devices (by name or id), or of the members of the
 * virtual chassis they are master of (the reference's `vc_interfaces`).
 */
const assignedToDevices: CustomFilter = {
  compile: async (values, _l, h) => {
    const ids = await h.resolveIds(model('dcim.device')(), values);
    if (!ids.length) return FALSE;
    // Through the chassis, member devices, interfaces and assignments the requester may view.
    const chassis = (await h.rows(model('dcim.virtualchassis')(), 'vc')).select('id', inList(ident('vc', 'master_id'), ids));
    const members = (await h.rows(model('dcim.device')(), 'vd')).select('id', sql`${ident('vd', 'virtual_chassis_id')} IN ${chassis}`);
    const interfaces = (await h.rows(model('dcim.interface')(), 'i')).select('id', or([inList(ident('i', 'device_id'), ids), sql`${ident('i', 'device_id')} IN ${members}`]));
    return sql`${h.col('id')} IN ${(await h.rows(ipAddressToInterface(), 'a')).select('ip_address_id', sql`${ident('a', 'interface_id')} IN ${interfaces}`)}`;
  },
};

/** Addresses assigned to an interface of these virtual machines (by name or id). */
const assignedToVirtualMachines: CustomFilter = {
  compile: async (values, _l, h) => {
    const ids = await h.resolveIds(model('virtualization.virtualmachine')(), values);
    if (!ids.length) return FALSE;
    const interfaces = (await h.rows(model('virtualization.vminterface')(), 'i')).select('id', inList(ident('i', 'virtual_machine_id'), ids));
    return sql`${h.col('id')} IN ${(await h.rows(ipAddressToInterface(), 'a')).select('ip_address_id', sql`${ident('a', 'vm_interface_id')} IN ${interfaces}`)}`;
  },
};

const ipAddressToInterface = model('ipam.ipaddresstointerface');

export const ipAddressResource = defineResource({
  app: 'ipam',
  model: 'ipaddress',
  slug: 'ip-addresses',
  verboseName: 'IP address',
  verboseNamePlural: 'IP addresses',
  naturalKey: ['namespace', 'host'],
  // The namespace is write-only on an address: its parent prefix's namespace says the same.
  naturalKeyPaths: ['parent__namespace__name', 'host'],
  ordering: ['ip_version', 'host', 'mask_length'],
  mixins: [statusMixin(), roleMixin({ defaults: IP_ADDRESS_ROLES }), tenancyMixin()],
  columns: { host: column.bytes(16), host_text: { ...column.string(45), sortable: false } },
  indexes: [['ip_version', 'host', 'mask_length', 'id'], ['host_text']],
  display: (r) => `${r.host_text}/${r.mask_length}`,
  displayUses: { namespace: ['name'] },
  fields: {
    address: field.composite({
      columns: ['host', 'mask_length', 'ip_version', 'host_text'],
      schema: { type: 'string', example: '10.0.0.1/24' },
      required: true,
      read: (r) => `${r.host_text}/${r.mask_length}`,
      parse: addressColumns,
    }),
    family: familyField(),
    host: field.computed(['host_text'], { type: 'string', readOnly: true }, (r) => r.host_text, { sortColumns: ['host'] }),
    mask_length: field.integer({ readOnly: true }),
    type: field.choice(IP_ADDRESS_TYPES, { default: 'host', maxLength: 50 }),
    parent: field.foreignKey(() => prefixResource, { nullable: true, onDelete: 'setNull', dbOnDelete: 'restrict', maintained: true, help: 'The parent Prefix of this IPAddress.' }),
    ip_version: field.integer({ readOnly: true, label: 'IP Version' }),
    namespace: field.foreignKey(() => namespaceResource, { writeOnly: true, onDelete: 'protect' }),
    nat_inside: field.foreignKey(() => ipAddressResource, { nullable: true, onDelete: 'setNull', label: 'NAT (Inside)' }),
    dns_name: field.string({
      maxLength: 255,
      index: true,
      label: 'DNS Name',
      help: 'Hostname or FQDN (not case-sensitive)',
      normalize: (v: string) => v.toLowerCase(),
      validate: (v: string) => (v === '' || DNS_NAME.test(v) ? undefined : 'Only alphanumeric characters, hyphens, periods, and underscores are allowed in DNS names'),
    }),
    description: field.string({ maxLength: 255 }),
    nat_outside_list: {
      ...field.computed([], { type: 'array', readOnly: true, items: { type: 'object' } }, () => [], { nested: false }),
      reverse: { target: () => ipAddressResource, column: 'nat_inside_id' },
    },
  },
  filters: {
    host: networkFilter(HOST_COLUMNS),
    address: addressFilter,
    prefix: lookupFilter(HOST_COLUMNS, 'net_host_contained'),
    within: lookupFilter(HOST_COLUMNS, 'net_contained'),
    within_include: lookupFilter(HOST_COLUMNS, 'net_contained_or_equal'),
    parent: parentFilter(() => prefixResource),
    vrf: vrfFilter('address'),
    present_in_vrf: presentInVrfFilter('address'),
    has_nat_inside: {
      boolean: true,
      compile: (values, _l, h) => (values[values.length - 1] ? sql`${h.col('nat_inside_id')} IS NOT NULL` : sql`${h.col('nat_inside_id')} IS NULL`),
    },
    q: searchFilter(HOST_COLUMNS),
    device: assignedToDevices,
    device_id: assignedToDevices,
    virtual_machine: assignedToVirtualMachines,
    virtual_machine_id: assignedToVirtualMachines,
    has_interface_assignments: {
      boolean: true,
      compile: async (values, _l, h) => {
        // Assignments the requester may view.
        const some = sql`${h.col('id')} IN ${(await h.rows(ipAddressToInterface(), 'a')).select('ip_address_id')}`;
        return values[values.length - 1] ? some : sql`NOT ${some}`;
      },
    },
  },
  // `interfaces` and `vm_interfaces` (name or id) come from the interfaces' reverse relations; these are their other names.
  filterAliases: { interface: 'interfaces', interface_id: 'interfaces', vm_interface: 'vm_interfaces', vm_interface_id: 'vm_interfaces' },
  uniqueTogether: [{ fields: ['namespace', 'ip_version', 'host'], field: '__all__', message: 'IP address with this Parent and Host already exists.' }],
  search: ['dns_name', 'description'],
  features: ['tags', 'customFields', 'notes'],
  rules(s) {
    const errors: FieldErrors = {};
    if (s.existing && ['host', 'ip_version'].some((c) => !same(s.existing![c], s.values[c]))) errors.__all__ = ['Host address cannot be changed once created'];
    if (s.values.type === 'slaac' && Number(s.values.ip_version) !== 6) errors.type = ['Only IPv6 addresses can be assigned SLAAC type'];
    return errors;
  },
  validateBatch: placeAddresses,
});
