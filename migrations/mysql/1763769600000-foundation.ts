import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Foundation schema for MySQL 8 and MariaDB 10.11+: UUIDs as char(36), JSON as `json`, times as
 * datetime(6) in UTC, and a binary collation so text compares case-sensitively as on PostgreSQL.
 */
export class Foundation1763769600000 implements MigrationInterface {
  name = 'Foundation1763769600000';

  async up(q: QueryRunner): Promise<void> {
    const s = (n: number) => `varchar(${n}) NOT NULL`;
    const t = `longtext NOT NULL`;
    const uuid = `char(36) NOT NULL`;
    const std = `\`id\` ${uuid} PRIMARY KEY, \`created\` datetime(6) NOT NULL, \`last_updated\` datetime(6) NOT NULL`;
    const cf = `\`_custom_field_data\` json NOT NULL`;
    const tail = `ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`;
    const fk = (col: string, table: string, action: string) => `FOREIGN KEY (\`${col}\`) REFERENCES \`${table}\` (\`id\`) ON DELETE ${action}`;
    await q.query(`CREATE TABLE \`netkeel_seed\` (\`name\` varchar(255) NOT NULL PRIMARY KEY) ${tail}`);

    // users
    await q.query(`CREATE TABLE \`users_user\` (${std}, \`username\` ${s(150)}, \`password\` ${s(256)}, \`first_name\` ${s(150)}, \`last_name\` ${s(150)},
      \`email\` ${s(254)}, \`is_active\` tinyint(1) NOT NULL, \`is_staff\` tinyint(1) NOT NULL, \`is_superuser\` tinyint(1) NOT NULL,
      \`date_joined\` datetime(6) NOT NULL, \`last_login\` datetime(6) NULL, \`config_data\` json NOT NULL,
      UNIQUE KEY \`users_user_username_key\` (\`username\`)) ${tail}`);
    await q.query(`CREATE TABLE \`users_group\` (${std}, \`name\` ${s(150)}, UNIQUE KEY \`users_group_name_key\` (\`name\`)) ${tail}`);
    await q.query(`CREATE TABLE \`users_user_groups\` (\`user_id\` ${uuid}, \`group_id\` ${uuid}, PRIMARY KEY (\`user_id\`, \`group_id\`),
      KEY \`users_user_groups_group_idx\` (\`group_id\`), ${fk('user_id', 'users_user', 'CASCADE')}, ${fk('group_id', 'users_group', 'CASCADE')}) ${tail}`);
    await q.query(`CREATE TABLE \`users_objectpermission\` (${std}, \`name\` ${s(100)}, \`description\` ${s(200)}, \`enabled\` tinyint(1) NOT NULL,
      \`actions\` json NOT NULL, \`constraints\` json NULL, UNIQUE KEY \`users_objectpermission_name_key\` (\`name\`)) ${tail}`);
    await q.query(`CREATE TABLE \`users_objectpermission_object_types\` (\`objectpermission_id\` ${uuid}, \`content_type\` ${s(100)},
      PRIMARY KEY (\`objectpermission_id\`, \`content_type\`), ${fk('objectpermission_id', 'users_objectpermission', 'CASCADE')}) ${tail}`);
    await q.query(`CREATE TABLE \`users_objectpermission_users\` (\`objectpermission_id\` ${uuid}, \`user_id\` ${uuid},
      PRIMARY KEY (\`objectpermission_id\`, \`user_id\`), KEY \`users_objectpermission_users_user_idx\` (\`user_id\`),
      ${fk('objectpermission_id', 'users_objectpermission', 'CASCADE')}, ${fk('user_id', 'users_user', 'CASCADE')}) ${tail}`);
    await q.query(`CREATE TABLE \`users_objectpermission_groups\` (\`objectpermission_id\` ${uuid}, \`group_id\` ${uuid},
      PRIMARY KEY (\`objectpermission_id\`, \`group_id\`), KEY \`users_objectpermission_groups_group_idx\` (\`group_id\`),
      ${fk('objectpermission_id', 'users_objectpermission', 'CASCADE')}, ${fk('group_id', 'users_group', 'CASCADE')}) ${tail}`);
    await q.query(`CREATE TABLE \`users_token\` (${std}, \`user_id\` ${uuid}, \`key_hash\` ${s(64)}, \`key_suffix\` ${s(6)},
      \`expires\` datetime(6) NULL, \`write_enabled\` tinyint(1) NOT NULL, \`description\` ${s(200)},
      UNIQUE KEY \`users_token_key_hash_key\` (\`key_hash\`), KEY \`users_token_user_idx\` (\`user_id\`), ${fk('user_id', 'users_user', 'CASCADE')}) ${tail}`);
    await q.query(`CREATE TABLE \`users_session\` (\`id_hash\` varchar(64) NOT NULL PRIMARY KEY, \`user_id\` ${uuid}, \`csrf\` ${s(64)},
      \`expires\` datetime(6) NOT NULL, \`created\` datetime(6) NOT NULL, KEY \`users_session_user_idx\` (\`user_id\`), ${fk('user_id', 'users_user', 'CASCADE')}) ${tail}`);

    // extras: statuses, tags, roles
    for (const [table, extra] of [['extras_status', ''], ['extras_tag', ''], ['extras_role', ', `weight` int NULL']]) {
      const owner = table.replace('extras_', '');
      await q.query(`CREATE TABLE \`${table}\` (${std}, ${cf}, \`name\` ${s(100)}, \`color\` ${s(6)}, \`description\` ${s(200)}${extra},
        UNIQUE KEY \`${table}_name_key\` (\`name\`)) ${tail}`);
      await q.query(`CREATE TABLE \`${table}_content_types\` (\`${owner}_id\` ${uuid}, \`content_type\` ${s(100)},
        PRIMARY KEY (\`${owner}_id\`, \`content_type\`), KEY \`${table}_content_types_ct_idx\` (\`content_type\`), ${fk(`${owner}_id`, table, 'CASCADE')}) ${tail}`);
    }
    await q.query(`CREATE TABLE \`extras_taggeditem\` (\`content_type\` ${s(100)}, \`object_id\` ${uuid}, \`tag_id\` ${uuid},
      PRIMARY KEY (\`content_type\`, \`object_id\`, \`tag_id\`), KEY \`extras_taggeditem_object_idx\` (\`object_id\`),
      KEY \`extras_taggeditem_tag_idx\` (\`tag_id\`, \`content_type\`), ${fk('tag_id', 'extras_tag', 'CASCADE')}) ${tail}`);

    // tenancy
    await q.query(`CREATE TABLE \`tenancy_tenantgroup\` (${std}, ${cf}, \`name\` ${s(100)}, \`description\` ${s(200)}, \`parent_id\` char(36) NULL,
      UNIQUE KEY \`tenancy_tenantgroup_name_key\` (\`name\`), KEY \`tenancy_tenantgroup_parent_idx\` (\`parent_id\`),
      ${fk('parent_id', 'tenancy_tenantgroup', 'CASCADE')}) ${tail}`);
    await q.query(`CREATE TABLE \`tenancy_tenant\` (${std}, ${cf}, \`name\` ${s(100)}, \`description\` ${s(200)}, \`comments\` ${t},
      \`tenant_group_id\` char(36) NULL, UNIQUE KEY \`tenancy_tenant_name_key\` (\`name\`), KEY \`tenancy_tenant_group_idx\` (\`tenant_group_id\`),
      ${fk('tenant_group_id', 'tenancy_tenantgroup', 'RESTRICT')}) ${tail}`);

    // dcim: location types and locations
    await q.query(`CREATE TABLE \`dcim_locationtype\` (${std}, ${cf}, \`name\` ${s(100)}, \`description\` ${s(200)}, \`nestable\` tinyint(1) NOT NULL,
      \`parent_id\` char(36) NULL, UNIQUE KEY \`dcim_locationtype_name_key\` (\`name\`), KEY \`dcim_locationtype_parent_idx\` (\`parent_id\`),
      ${fk('parent_id', 'dcim_locationtype', 'CASCADE')}) ${tail}`);
    await q.query(`CREATE TABLE \`dcim_locationtype_content_types\` (\`locationtype_id\` ${uuid}, \`content_type\` ${s(100)},
      PRIMARY KEY (\`locationtype_id\`, \`content_type\`), ${fk('locationtype_id', 'dcim_locationtype', 'CASCADE')}) ${tail}`);
    await q.query(`CREATE TABLE \`dcim_location\` (${std}, ${cf}, \`name\` ${s(100)}, \`_name\` ${s(255)},
      \`location_type_id\` ${uuid}, \`parent_id\` char(36) NULL, \`status_id\` ${uuid}, \`tenant_id\` char(36) NULL,
      \`description\` ${s(200)}, \`facility\` ${s(50)}, \`asn\` bigint NULL, \`time_zone\` ${s(50)},
      \`physical_address\` ${t}, \`shipping_address\` ${t}, \`latitude\` decimal(8,6) NULL, \`longitude\` decimal(9,6) NULL,
      \`contact_name\` ${s(100)}, \`contact_phone\` ${s(50)}, \`contact_email\` ${s(254)}, \`comments\` ${t},
      UNIQUE KEY \`dcim_location_parent_name_key\` (\`parent_id\`, \`name\`),
      KEY \`dcim_location_nname_idx\` (\`_name\`), KEY \`dcim_location_name_idx\` (\`name\`), KEY \`dcim_location_location_type_id_idx\` (\`location_type_id\`),
      KEY \`dcim_location_status_id_idx\` (\`status_id\`), KEY \`dcim_location_tenant_id_idx\` (\`tenant_id\`),
      ${fk('location_type_id', 'dcim_locationtype', 'RESTRICT')}, ${fk('parent_id', 'dcim_location', 'CASCADE')},
      ${fk('status_id', 'extras_status', 'RESTRICT')}, ${fk('tenant_id', 'tenancy_tenant', 'RESTRICT')}) ${tail}`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'dcim_location', 'dcim_locationtype_content_types', 'dcim_locationtype', 'tenancy_tenant', 'tenancy_tenantgroup',
      'extras_taggeditem', 'extras_role_content_types', 'extras_role', 'extras_tag_content_types', 'extras_tag',
      'extras_status_content_types', 'extras_status', 'users_session', 'users_token', 'users_objectpermission_groups',
      'users_objectpermission_users', 'users_objectpermission_object_types', 'users_objectpermission', 'users_user_groups',
      'users_group', 'users_user', 'netkeel_seed',
    ]) {
      await q.query(`DROP TABLE IF EXISTS \`${table}\``);
    }
  }
}
