import { CustomFilter, defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import type { Row } from '../../../database/db';
import { column } from '../../../database/schema/schema';
import { join, sql } from '../../../database/sql';

export const SERVICE_PROTOCOLS = [
  ['tcp', 'TCP'],
  ['udp', 'UDP'],
] as const;
const PORT_MIN = 1;
const PORT_MAX = 65535;

/** A list of port numbers, as the reference's serializer reads `ports` (a list of integers 1-65535, not empty). */
function portList(v: unknown): string | undefined {
  if (!Array.isArray(v)) return `Expected a list of items but got type "${v === null ? 'NoneType' : typeof v === 'object' ? 'dict' : typeof v === 'string' ? 'str' : typeof v}".`;
  if (!v.length) return 'This field cannot be blank.';
  for (const p of v) {
    if (typeof p !== 'number' || !Number.isInteger(p)) return 'A valid integer is required.';
    if (p < PORT_MIN) return `Ensure this value is greater than or equal to ${PORT_MIN}.`;
    if (p > PORT_MAX) return `Ensure this value is less than or equal to ${PORT_MAX}.`;
  }
  return undefined;
}

/** A port as DRF's IntegerField reads one: a number, or its text ("22", "22.0"); anything else is left for the check to refuse. */
const port = (p: unknown): unknown => (typeof p === 'string' && /^\s*\d+(\.0*)?\s*$/.test(p) ? Number.parseInt(p, 10) : p);

/** "22, 80-82, 443": the ports as the reference prints them (runs of consecutive numbers as ranges). */
export function portRanges(ports: number[]): string {
  const sorted = [...new Set(ports)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    out.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

const portsOf = (r: Row): number[] => {
  const v = typeof r.ports === 'string' ? JSON.parse(r.ports) : r.ports;
  return Array.isArray(v) ? v.filter((p): p is number => typeof p === 'number') : [];
};

/** `ports=22`: services listening on any of the ports given (the reference's array "contains"). */
const portsFilter: CustomFilter = {
  compile: (values, _lookup, h) => {
    const ports = values.map((v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) h.invalid(`Enter a whole number.`);
      return n;
    });
    return sql`(${join(ports.map((p) => h.exec.dialect.jsonArrayHas(h.col('ports'), p)), ' OR ')})`;
  },
};

/**
 * A layer-four service (SSH, HTTP) on a device or a virtual machine (exactly one, with the
 * reference's messages), on some of its IP addresses. Sorted by protocol, then ports (a stored
 * key of the zero-padded ports, element by element, the same on every database).
 */
export const serviceResource = defineResource({
  app: 'ipam',
  model: 'service',
  slug: 'services',
  naturalKey: ['name', 'virtual_machine', 'device'],
  ordering: ['protocol', '_ports', 'id'],
  display: (r) => `${r.name} (${SERVICE_PROTOCOLS.find(([v]) => v === r.protocol)?.[1] ?? r.protocol}/${portRanges(portsOf(r))})`,
  columns: { _ports: column.string(255) },
  fields: {
    device: field.foreignKey(model('dcim.device'), { nullable: true, onDelete: 'cascade', relatedName: 'services', help: 'Required if no virtual_machine is specified' }),
    virtual_machine: field.foreignKey(model('virtualization.virtualmachine'), { nullable: true, onDelete: 'cascade', relatedName: 'services', help: 'Required if no device is specified' }),
    name: field.string({ required: true, maxLength: 255, index: true }),
    protocol: field.choice(SERVICE_PROTOCOLS, { required: true, maxLength: 50 }),
    ports: field.json({ required: true, normalize: (v: unknown) => (Array.isArray(v) ? v.map(port) : v), validate: portList, label: 'Port numbers' }),
    ip_addresses: field.manyToMany(model('ipam.ipaddress'), { table: 'ipam_service_ip_addresses', source: 'service_id', target: 'ipaddress_id' }, { writable: true, relatedName: 'services', label: 'IP addresses' }),
    description: field.string({ maxLength: 255 }),
  },
  uniqueTogether: [
    { fields: ['name', 'device'], message: 'The fields name, device must make a unique set.' },
    { fields: ['name', 'virtual_machine'], message: 'The fields name, virtual_machine must make a unique set.' },
  ],
  rules(s) {
    if (s.values.device_id && s.values.virtual_machine_id) return { __all__: ['A service cannot be associated with both a device and a virtual machine.'] };
    if (!s.values.device_id && !s.values.virtual_machine_id) return { __all__: ['A service must be associated with either a device or a virtual machine.'] };
  },
  beforeSave(states) {
    for (const s of states) {
      const ports = Array.isArray(s.values.ports) ? (s.values.ports as number[]) : [];
      s.values._ports = ports
        .slice(0, 42)
        .map((p) => String(p).padStart(5, '0'))
        .join(',');
    }
  },
  filters: { ports: portsFilter },
  search: ['name', 'description'],
  features: ['tags', 'customFields', 'notes'],
});
