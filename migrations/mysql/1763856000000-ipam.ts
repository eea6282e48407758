import { MigrationInterface, QueryRunner } from 'typeorm';
import { IPAM_TABLES } from '../postgres/1763856000000-ipam';

/**
 * IPAM for MySQL 8 and MariaDB 10.11+ (see the PostgreSQL migration for the design). Addresses
 * are varbinary(16): binary comparison is address order and InnoDB serves containment as index
 * range scans. UUIDs char(36), JSON `json`, times datetime(6), tables utf8mb4_bin.
 */
export class Ipam1763856000000 implements MigrationInterface {
  name = 'Ipam1763856000000';

  async up(q: QueryRunner): Promise<void> {
    const s = (n: number) => `varchar(${n}) NOT NULL`;
    const uuid = `char(36) NOT NULL`;
    const nuuid = `char(36) NULL`;
    const bytes = `varbinary(16) NOT NULL`;
    const bool = `tinyint(1) NOT NULL`;
    const std = `\`id\` ${uuid} PRIMARY KEY, \`created\` datetime(6) NOT NULL, \`last_updated\` datetime(6) NOT NULL`;
    const cf = `\`_custom_field_data\` json NOT NULL`;
    const tail = `ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`;
    const fk = (col: string, table: string, action = 'RESTRICT') => `FOREIGN KEY (\`${col}\`) REFERENCES \`${table}\` (\`id\`) ON DELETE ${action}`;
    const key = (table: string, name: string, cols: string[]) => `KEY \`${table}_${name}_idx\` (${cols.map((c) => `\`${c}\``).join(', ')})`;
    const unique = (name: string, cols: string[]) => `UNIQUE KEY \`${name}\` (${cols.map((c) => `\`${c}\``).join(', ')})`;
    const create = (table: string, parts: string[]) => q.query(`CREATE TABLE \`${table}\` (${parts.join(',\n      ')}) ${tail}`);

    await create('ipam_namespace', [std, cf, `\`name\` ${s(255)}`, `\`description\` ${s(255)}`, `\`location_id\` ${nuuid}`,
      unique('ipam_namespace_name_key', ['name']), key('ipam_namespace', 'location', ['location_id']), fk('location_id', 'dcim_location')]);

    await create('ipam_rir', [std, cf, `\`name\` ${s(255)}`, `\`is_private\` ${bool}`, `\`description\` ${s(255)}`, unique('ipam_rir_name_key', ['name'])]);

    await create('ipam_routetarget', [std, cf, `\`name\` ${s(21)}`, `\`description\` ${s(255)}`, `\`tenant_id\` ${nuuid}`,
      unique('ipam_routetarget_name_key', ['name']), key('ipam_routetarget', 'tenant', ['tenant_id']), fk('tenant_id', 'tenancy_tenant')]);

    await create('ipam_vrf', [std, cf, `\`name\` ${s(255)}`, `\`rd\` varchar(21) NULL`, `\`namespace_id\` ${uuid}`, `\`status_id\` ${nuuid}`,
      `\`tenant_id\` ${nuuid}`, `\`description\` ${s(255)}`, unique('ipam_vrf_namespace_rd_key', ['namespace_id', 'rd']),
      key('ipam_vrf', 'namespace_name', ['namespace_id', 'name', 'rd']), key('ipam_vrf', 'status', ['status_id']), key('ipam_vrf', 'tenant', ['tenant_id']),
      fk('namespace_id', 'ipam_namespace'), fk('status_id', 'extras_status'), fk('tenant_id', 'tenancy_tenant')]);
    for (const dir of ['import', 'export']) {
      const table = `ipam_vrf_${dir}_targets`;
      await create(table, [`\`vrf_id\` ${uuid}`, `\`routetarget_id\` ${uuid}`, 'PRIMARY KEY (`vrf_id`, `routetarget_id`)',
        key(table, 'target', ['routetarget_id']), fk('vrf_id', 'ipam_vrf', 'CASCADE'), fk('routetarget_id', 'ipam_routetarget', 'CASCADE')]);
    }

    await create('ipam_vlangroup', [std, cf, `\`name\` ${s(255)}`, `\`location_id\` ${nuuid}`, `\`description\` ${s(255)}`, `\`range\` ${s(255)}`,
      unique('ipam_vlangroup_name_key', ['name']), key('ipam_vlangroup', 'location', ['location_id']), fk('location_id', 'dcim_location')]);

    await create('ipam_vlan', [std, cf, '`vid` int NOT NULL', `\`name\` ${s(255)}`, `\`status_id\` ${uuid}`, `\`role_id\` ${nuuid}`,
      `\`tenant_id\` ${nuuid}`, `\`vlan_group_id\` ${nuuid}`, `\`description\` ${s(255)}`,
      unique('ipam_vlan_group_vid_key', ['vlan_group_id', 'vid']), unique('ipam_vlan_group_name_key', ['vlan_group_id', 'name']),
      key('ipam_vlan', 'vid', ['vid']), key('ipam_vlan', 'name', ['name']), key('ipam_vlan', 'status', ['status_id']), key('ipam_vlan', 'role', ['role_id']),
      key('ipam_vlan', 'tenant', ['tenant_id']), fk('status_id', 'extras_status'), fk('role_id', 'extras_role'), fk('tenant_id', 'tenancy_tenant'),
      fk('vlan_group_id', 'ipam_vlangroup')]);
    await create('ipam_vlanlocationassignment', [`\`vlan_id\` ${uuid}`, `\`location_id\` ${uuid}`, 'PRIMARY KEY (`vlan_id`, `location_id`)',
      key('ipam_vlanlocationassignment', 'location', ['location_id']), fk('vlan_id', 'ipam_vlan', 'CASCADE'), fk('location_id', 'dcim_location', 'CASCADE')]);

    await create('ipam_prefix', [std, cf, `\`network\` ${bytes}`, `\`broadcast\` ${bytes}`, '`prefix_length` int NOT NULL', '`ip_version` int NOT NULL',
      `\`network_text\` ${s(45)}`, `\`type\` ${s(50)}`, `\`status_id\` ${uuid}`, `\`role_id\` ${nuuid}`, `\`parent_id\` ${nuuid}`,
      `\`namespace_id\` ${uuid}`, `\`tenant_id\` ${nuuid}`, `\`vlan_id\` ${nuuid}`, `\`rir_id\` ${nuuid}`, '`date_allocated` datetime(6) NULL',
      `\`description\` ${s(255)}`, unique('ipam_prefix_namespace_network_key', ['namespace_id', 'network', 'prefix_length']),
      key('ipam_prefix', 'namespace_order', ['namespace_id', 'ip_version', 'network', 'prefix_length', 'id']),
      key('ipam_prefix', 'namespace_length', ['namespace_id', 'ip_version', 'prefix_length']),
      key('ipam_prefix', 'network', ['ip_version', 'network', 'prefix_length']), key('ipam_prefix', 'broadcast', ['ip_version', 'broadcast']),
      key('ipam_prefix', 'network_text', ['network_text']),
      ...['parent', 'status', 'role', 'tenant', 'vlan', 'rir'].map((c) => key('ipam_prefix', c, [`${c}_id`])),
      fk('status_id', 'extras_status'), fk('role_id', 'extras_role'), fk('parent_id', 'ipam_prefix'), fk('namespace_id', 'ipam_namespace'),
      fk('tenant_id', 'tenancy_tenant'), fk('vlan_id', 'ipam_vlan'), fk('rir_id', 'ipam_rir')]);
    await create('ipam_prefixlocationassignment', [`\`prefix_id\` ${uuid}`, `\`location_id\` ${uuid}`, 'PRIMARY KEY (`prefix_id`, `location_id`)',
      key('ipam_prefixlocationassignment', 'location', ['location_id']), fk('prefix_id', 'ipam_prefix', 'CASCADE'), fk('location_id', 'dcim_location', 'CASCADE')]);
    await create('ipam_vrfprefixassignment', [std, `\`vrf_id\` ${uuid}`, `\`prefix_id\` ${uuid}`,
      unique('ipam_vrfprefixassignment_vrf_prefix_key', ['vrf_id', 'prefix_id']), key('ipam_vrfprefixassignment', 'prefix', ['prefix_id']),
      fk('vrf_id', 'ipam_vrf', 'CASCADE'), fk('prefix_id', 'ipam_prefix', 'CASCADE')]);

    await create('ipam_ipaddress', [std, cf, `\`host\` ${bytes}`, '`mask_length` int NOT NULL', '`ip_version` int NOT NULL', `\`host_text\` ${s(45)}`,
      `\`type\` ${s(50)}`, `\`status_id\` ${uuid}`, `\`role_id\` ${nuuid}`, `\`parent_id\` ${nuuid}`, `\`namespace_id\` ${uuid}`,
      `\`tenant_id\` ${nuuid}`, `\`nat_inside_id\` ${nuuid}`, `\`dns_name\` ${s(255)}`, `\`description\` ${s(255)}`,
      unique('ipam_ipaddress_namespace_host_key', ['namespace_id', 'ip_version', 'host']),
      key('ipam_ipaddress', 'order', ['ip_version', 'host', 'mask_length', 'id']), key('ipam_ipaddress', 'host_text', ['host_text']),
      key('ipam_ipaddress', 'dns_name', ['dns_name']),
      ...['parent', 'status', 'role', 'tenant', 'nat_inside'].map((c) => key('ipam_ipaddress', c, [`${c}_id`])),
      fk('status_id', 'extras_status'), fk('role_id', 'extras_role'), fk('parent_id', 'ipam_prefix'), fk('namespace_id', 'ipam_namespace'),
      fk('tenant_id', 'tenancy_tenant'), fk('nat_inside_id', 'ipam_ipaddress', 'SET NULL')]);

    await create('ipam_ipaddresstointerface', [std, `\`ip_address_id\` ${uuid}`, `\`interface_id\` ${nuuid}`, `\`vm_interface_id\` ${nuuid}`,
      ...['is_source', 'is_destination', 'is_default', 'is_preferred', 'is_primary', 'is_secondary', 'is_standby'].map((c) => `\`${c}\` ${bool}`),
      unique('ipam_ipaddresstointerface_interface_key', ['ip_address_id', 'interface_id']),
      unique('ipam_ipaddresstointerface_vm_interface_key', ['ip_address_id', 'vm_interface_id']),
      key('ipam_ipaddresstointerface', 'interface', ['interface_id']), key('ipam_ipaddresstointerface', 'vm_interface', ['vm_interface_id']),
      fk('ip_address_id', 'ipam_ipaddress', 'CASCADE')]);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of IPAM_TABLES) await q.query(`DROP TABLE IF EXISTS \`${table}\``);
  }
}
