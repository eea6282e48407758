import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * IPAM: namespaces, RIRs, route targets, VRFs, VLAN groups, VLANs, prefixes, IP addresses and
 * their assignments. PostgreSQL and PGlite.
 *
 * Addresses are 16 bytes (IPv4 as ::ffff:a.b.c.d), so `bytea` comparison is address order.
 * The indexes serve: containment as a range on (namespace, family, network) or (family, host);
 * closest-parent lookups as point lookups on (namespace, family, network, length); the distinct
 * lengths of a namespace as index probes; default orderings (with the id tie-break) without a sort.
 */
export class Ipam1763856000000 implements MigrationInterface {
  name = 'Ipam1763856000000';

  async up(q: QueryRunner): Promise<void> {
    const s = (n: number) => `varchar(${n}) COLLATE "C" NOT NULL`;
    const std = `"id" uuid PRIMARY KEY, "created" timestamptz NOT NULL, "last_updated" timestamptz NOT NULL`;
    const cf = `"_custom_field_data" jsonb NOT NULL DEFAULT '{}'`;
    const ref = (table: string, action = 'RESTRICT') => `uuid NULL REFERENCES "${table}" ("id") ON DELETE ${action}`;
    const req = (table: string, action = 'RESTRICT') => `uuid NOT NULL REFERENCES "${table}" ("id") ON DELETE ${action}`;
    const index = async (table: string, name: string, cols: string[]) =>
      q.query(`CREATE INDEX "${table}_${name}_idx" ON "${table}" (${cols.map((c) => `"${c}"`).join(', ')})`);

    await q.query(`CREATE TABLE "ipam_namespace" (${std}, ${cf}, "name" ${s(255)}, "description" ${s(255)}, "location_id" ${ref('dcim_location')},
      CONSTRAINT "ipam_namespace_name_key" UNIQUE ("name"))`);
    await index('ipam_namespace', 'location', ['location_id']);

    await q.query(`CREATE TABLE "ipam_rir" (${std}, ${cf}, "name" ${s(255)}, "is_private" boolean NOT NULL, "description" ${s(255)},
      CONSTRAINT "ipam_rir_name_key" UNIQUE ("name"))`);

    await q.query(`CREATE TABLE "ipam_routetarget" (${std}, ${cf}, "name" ${s(21)}, "description" ${s(255)}, "tenant_id" ${ref('tenancy_tenant')},
      CONSTRAINT "ipam_routetarget_name_key" UNIQUE ("name"))`);
    await index('ipam_routetarget', 'tenant', ['tenant_id']);

    await q.query(`CREATE TABLE "ipam_vrf" (${std}, ${cf}, "name" ${s(255)}, "rd" varchar(21) COLLATE "C" NULL,
      "namespace_id" ${req('ipam_namespace')}, "status_id" ${ref('extras_status')}, "tenant_id" ${ref('tenancy_tenant')}, "description" ${s(255)},
      CONSTRAINT "ipam_vrf_namespace_rd_key" UNIQUE ("namespace_id", "rd"))`);
    await index('ipam_vrf', 'namespace_name', ['namespace_id', 'name', 'rd']);
    await index('ipam_vrf', 'status', ['status_id']);
    await index('ipam_vrf', 'tenant', ['tenant_id']);
    for (const dir of ['import', 'export']) {
      await q.query(`CREATE TABLE "ipam_vrf_${dir}_targets" ("vrf_id" ${req('ipam_vrf', 'CASCADE')}, "routetarget_id" ${req('ipam_routetarget', 'CASCADE')},
        PRIMARY KEY ("vrf_id", "routetarget_id"))`);
      await index(`ipam_vrf_${dir}_targets`, 'target', ['routetarget_id']);
    }

    await q.query(`CREATE TABLE "ipam_vlangroup" (${std}, ${cf}, "name" ${s(255)}, "location_id" ${ref('dcim_location')}, "description" ${s(255)},
      "range" ${s(255)}, CONSTRAINT "ipam_vlangroup_name_key" UNIQUE ("name"))`);
    await index('ipam_vlangroup', 'location', ['location_id']);

    await q.query(`CREATE TABLE "ipam_vlan" (${std}, ${cf}, "vid" integer NOT NULL, "name" ${s(255)}, "status_id" ${req('extras_status')},
      "role_id" ${ref('extras_role')}, "tenant_id" ${ref('tenancy_tenant')}, "vlan_group_id" ${ref('ipam_vlangroup')}, "description" ${s(255)},
      CONSTRAINT "ipam_vlan_group_vid_key" UNIQUE ("vlan_group_id", "vid"), CONSTRAINT "ipam_vlan_group_name_key" UNIQUE ("vlan_group_id", "name"))`);
    for (const [name, cols] of [['vid', ['vid']], ['name', ['name']], ['status', ['status_id']], ['role', ['role_id']], ['tenant', ['tenant_id']]] as const) {
      await index('ipam_vlan', name, [...cols]);
    }
    await q.query(`CREATE TABLE "ipam_vlanlocationassignment" ("vlan_id" ${req('ipam_vlan', 'CASCADE')}, "location_id" ${req('dcim_location', 'CASCADE')},
      PRIMARY KEY ("vlan_id", "location_id"))`);
    await index('ipam_vlanlocationassignment', 'location', ['location_id']);

    await q.query(`CREATE TABLE "ipam_prefix" (${std}, ${cf}, "network" bytea NOT NULL, "broadcast" bytea NOT NULL,
      "prefix_length" integer NOT NULL, "ip_version" integer NOT NULL, "network_text" ${s(45)}, "type" ${s(50)},
      "status_id" ${req('extras_status')}, "role_id" ${ref('extras_role')}, "parent_id" ${ref('ipam_prefix')},
      "namespace_id" ${req('ipam_namespace')}, "tenant_id" ${ref('tenancy_tenant')}, "vlan_id" ${ref('ipam_vlan')}, "rir_id" ${ref('ipam_rir')},
      "date_allocated" timestamptz NULL, "description" ${s(255)},
      CONSTRAINT "ipam_prefix_namespace_network_key" UNIQUE ("namespace_id", "network", "prefix_length"))`);
    await index('ipam_prefix', 'namespace_order', ['namespace_id', 'ip_version', 'network', 'prefix_length', 'id']);
    await index('ipam_prefix', 'namespace_length', ['namespace_id', 'ip_version', 'prefix_length']);
    await index('ipam_prefix', 'network', ['ip_version', 'network', 'prefix_length']);
    await index('ipam_prefix', 'broadcast', ['ip_version', 'broadcast']);
    await index('ipam_prefix', 'network_text', ['network_text']);
    for (const col of ['parent', 'status', 'role', 'tenant', 'vlan', 'rir']) await index('ipam_prefix', col, [`${col}_id`]);
    await q.query(`CREATE TABLE "ipam_prefixlocationassignment" ("prefix_id" ${req('ipam_prefix', 'CASCADE')}, "location_id" ${req('dcim_location', 'CASCADE')},
      PRIMARY KEY ("prefix_id", "location_id"))`);
    await index('ipam_prefixlocationassignment', 'location', ['location_id']);
    await q.query(`CREATE TABLE "ipam_vrfprefixassignment" (${std}, "vrf_id" ${req('ipam_vrf', 'CASCADE')}, "prefix_id" ${req('ipam_prefix', 'CASCADE')},
      CONSTRAINT "ipam_vrfprefixassignment_vrf_prefix_key" UNIQUE ("vrf_id", "prefix_id"))`);
    await index('ipam_vrfprefixassignment', 'prefix', ['prefix_id']);

    await q.query(`CREATE TABLE "ipam_ipaddress" (${std}, ${cf}, "host" bytea NOT NULL, "mask_length" integer NOT NULL, "ip_version" integer NOT NULL,
      "host_text" ${s(45)}, "type" ${s(50)}, "status_id" ${req('extras_status')}, "role_id" ${ref('extras_role')},
      "parent_id" ${ref('ipam_prefix')}, "namespace_id" ${req('ipam_namespace')}, "tenant_id" ${ref('tenancy_tenant')},
      "nat_inside_id" ${ref('ipam_ipaddress', 'SET NULL')}, "dns_name" ${s(255)}, "description" ${s(255)},
      CONSTRAINT "ipam_ipaddress_namespace_host_key" UNIQUE ("namespace_id", "ip_version", "host"))`);
    await index('ipam_ipaddress', 'order', ['ip_version', 'host', 'mask_length', 'id']);
    await index('ipam_ipaddress', 'host_text', ['host_text']);
    await index('ipam_ipaddress', 'dns_name', ['dns_name']);
    for (const col of ['parent', 'status', 'role', 'tenant', 'nat_inside']) await index('ipam_ipaddress', col, [`${col}_id`]);

    await q.query(`CREATE TABLE "ipam_ipaddresstointerface" (${std}, "ip_address_id" ${req('ipam_ipaddress', 'CASCADE')},
      "interface_id" uuid NULL, "vm_interface_id" uuid NULL, "is_source" boolean NOT NULL, "is_destination" boolean NOT NULL,
      "is_default" boolean NOT NULL, "is_preferred" boolean NOT NULL, "is_primary" boolean NOT NULL, "is_secondary" boolean NOT NULL,
      "is_standby" boolean NOT NULL,
      CONSTRAINT "ipam_ipaddresstointerface_interface_key" UNIQUE ("ip_address_id", "interface_id"),
      CONSTRAINT "ipam_ipaddresstointerface_vm_interface_key" UNIQUE ("ip_address_id", "vm_interface_id"))`);
    await index('ipam_ipaddresstointerface', 'interface', ['interface_id']);
    await index('ipam_ipaddresstointerface', 'vm_interface', ['vm_interface_id']);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of IPAM_TABLES) await q.query(`DROP TABLE IF EXISTS "${table}"`);
  }
}

/** Every IPAM table, dependents first. */
export const IPAM_TABLES = [
  'ipam_ipaddresstointerface', 'ipam_ipaddress', 'ipam_vrfprefixassignment', 'ipam_prefixlocationassignment', 'ipam_prefix',
  'ipam_vlanlocationassignment', 'ipam_vlan', 'ipam_vlangroup', 'ipam_vrf_export_targets', 'ipam_vrf_import_targets', 'ipam_vrf',
  'ipam_routetarget', 'ipam_rir', 'ipam_namespace',
];
