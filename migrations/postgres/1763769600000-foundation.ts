import { MigrationInterface, QueryRunner } from 'typeorm';

/** Foundation schema: users and tokens, statuses, tags, roles, tenancy, locations. PostgreSQL and PGlite. */
export class Foundation1763769600000 implements MigrationInterface {
  name = 'Foundation1763769600000';

  async up(q: QueryRunner): Promise<void> {
    const s = (n: number) => `varchar(${n}) COLLATE "C" NOT NULL`;
    const t = `text COLLATE "C" NOT NULL`;
    const std = `"id" uuid PRIMARY KEY, "created" timestamptz NOT NULL, "last_updated" timestamptz NOT NULL`;
    const cf = `"_custom_field_data" jsonb NOT NULL DEFAULT '{}'`;
    await q.query(`CREATE TABLE "netkeel_seed" ("name" varchar(255) COLLATE "C" PRIMARY KEY)`);

    // users
    await q.query(`CREATE TABLE "users_user" (${std}, "username" ${s(150)}, "password" ${s(256)}, "first_name" ${s(150)}, "last_name" ${s(150)},
      "email" ${s(254)}, "is_active" boolean NOT NULL, "is_staff" boolean NOT NULL, "is_superuser" boolean NOT NULL,
      "date_joined" timestamptz NOT NULL, "last_login" timestamptz NULL, "config_data" jsonb NOT NULL DEFAULT '{}',
      CONSTRAINT "users_user_username_key" UNIQUE ("username"))`);
    await q.query(`CREATE TABLE "users_group" (${std}, "name" ${s(150)}, CONSTRAINT "users_group_name_key" UNIQUE ("name"))`);
    await q.query(`CREATE TABLE "users_user_groups" ("user_id" uuid NOT NULL REFERENCES "users_user" ("id") ON DELETE CASCADE,
      "group_id" uuid NOT NULL REFERENCES "users_group" ("id") ON DELETE CASCADE, PRIMARY KEY ("user_id", "group_id"))`);
    await q.query(`CREATE INDEX "users_user_groups_group_idx" ON "users_user_groups" ("group_id")`);
    await q.query(`CREATE TABLE "users_objectpermission" (${std}, "name" ${s(100)}, "description" ${s(200)}, "enabled" boolean NOT NULL,
      "actions" jsonb NOT NULL, "constraints" jsonb NULL, CONSTRAINT "users_objectpermission_name_key" UNIQUE ("name"))`);
    await q.query(`CREATE TABLE "users_objectpermission_object_types" ("objectpermission_id" uuid NOT NULL REFERENCES "users_objectpermission" ("id") ON DELETE CASCADE,
      "content_type" ${s(100)}, PRIMARY KEY ("objectpermission_id", "content_type"))`);
    await q.query(`CREATE TABLE "users_objectpermission_users" ("objectpermission_id" uuid NOT NULL REFERENCES "users_objectpermission" ("id") ON DELETE CASCADE,
      "user_id" uuid NOT NULL REFERENCES "users_user" ("id") ON DELETE CASCADE, PRIMARY KEY ("objectpermission_id", "user_id"))`);
    await q.query(`CREATE INDEX "users_objectpermission_users_user_idx" ON "users_objectpermission_users" ("user_id")`);
    await q.query(`CREATE TABLE "users_objectpermission_groups" ("objectpermission_id" uuid NOT NULL REFERENCES "users_objectpermission" ("id") ON DELETE CASCADE,
      "group_id" uuid NOT NULL REFERENCES "users_group" ("id") ON DELETE CASCADE, PRIMARY KEY ("objectpermission_id", "group_id"))`);
    await q.query(`CREATE INDEX "users_objectpermission_groups_group_idx" ON "users_objectpermission_groups" ("group_id")`);
    await q.query(`CREATE TABLE "users_token" (${std}, "user_id" uuid NOT NULL REFERENCES "users_user" ("id") ON DELETE CASCADE,
      "key_hash" ${s(64)}, "key_suffix" ${s(6)}, "expires" timestamptz NULL, "write_enabled" boolean NOT NULL, "description" ${s(200)},
      CONSTRAINT "users_token_key_hash_key" UNIQUE ("key_hash"))`);
    await q.query(`CREATE INDEX "users_token_user_idx" ON "users_token" ("user_id")`);
    await q.query(`CREATE TABLE "users_session" ("id_hash" ${s(64)} PRIMARY KEY, "user_id" uuid NOT NULL REFERENCES "users_user" ("id") ON DELETE CASCADE,
      "csrf" ${s(64)}, "expires" timestamptz NOT NULL, "created" timestamptz NOT NULL)`);
    await q.query(`CREATE INDEX "users_session_user_idx" ON "users_session" ("user_id")`);

    // extras: statuses, tags, roles
    for (const [table, extra] of [['extras_status', ''], ['extras_tag', ''], ['extras_role', `, "weight" integer NULL`]]) {
      const owner = table.replace('extras_', '');
      await q.query(`CREATE TABLE "${table}" (${std}, ${cf}, "name" ${s(100)}, "color" ${s(6)}, "description" ${s(200)}${extra},
        CONSTRAINT "${table}_name_key" UNIQUE ("name"))`);
      await q.query(`CREATE TABLE "${table}_content_types" ("${owner}_id" uuid NOT NULL REFERENCES "${table}" ("id") ON DELETE CASCADE,
        "content_type" ${s(100)}, PRIMARY KEY ("${owner}_id", "content_type"))`);
      await q.query(`CREATE INDEX "${table}_content_types_ct_idx" ON "${table}_content_types" ("content_type")`);
    }
    await q.query(`CREATE TABLE "extras_taggeditem" ("content_type" ${s(100)}, "object_id" uuid NOT NULL,
      "tag_id" uuid NOT NULL REFERENCES "extras_tag" ("id") ON DELETE CASCADE, PRIMARY KEY ("content_type", "object_id", "tag_id"))`);
    await q.query(`CREATE INDEX "extras_taggeditem_object_idx" ON "extras_taggeditem" ("object_id")`);
    await q.query(`CREATE INDEX "extras_taggeditem_tag_idx" ON "extras_taggeditem" ("tag_id", "content_type")`);

    // tenancy
    await q.query(`CREATE TABLE "tenancy_tenantgroup" (${std}, ${cf}, "name" ${s(100)}, "description" ${s(200)},
      "parent_id" uuid NULL REFERENCES "tenancy_tenantgroup" ("id") ON DELETE CASCADE, CONSTRAINT "tenancy_tenantgroup_name_key" UNIQUE ("name"))`);
    await q.query(`CREATE INDEX "tenancy_tenantgroup_parent_idx" ON "tenancy_tenantgroup" ("parent_id")`);
    await q.query(`CREATE TABLE "tenancy_tenant" (${std}, ${cf}, "name" ${s(100)}, "description" ${s(200)}, "comments" ${t},
      "tenant_group_id" uuid NULL REFERENCES "tenancy_tenantgroup" ("id") ON DELETE RESTRICT, CONSTRAINT "tenancy_tenant_name_key" UNIQUE ("name"))`);
    await q.query(`CREATE INDEX "tenancy_tenant_group_idx" ON "tenancy_tenant" ("tenant_group_id")`);

    // dcim: location types and locations
    await q.query(`CREATE TABLE "dcim_locationtype" (${std}, ${cf}, "name" ${s(100)}, "description" ${s(200)}, "nestable" boolean NOT NULL,
      "parent_id" uuid NULL REFERENCES "dcim_locationtype" ("id") ON DELETE CASCADE, CONSTRAINT "dcim_locationtype_name_key" UNIQUE ("name"))`);
    await q.query(`CREATE INDEX "dcim_locationtype_parent_idx" ON "dcim_locationtype" ("parent_id")`);
    await q.query(`CREATE TABLE "dcim_locationtype_content_types" ("locationtype_id" uuid NOT NULL REFERENCES "dcim_locationtype" ("id") ON DELETE CASCADE,
      "content_type" ${s(100)}, PRIMARY KEY ("locationtype_id", "content_type"))`);
    await q.query(`CREATE TABLE "dcim_location" (${std}, ${cf}, "name" ${s(100)}, "_name" ${s(255)},
      "location_type_id" uuid NOT NULL REFERENCES "dcim_locationtype" ("id") ON DELETE RESTRICT,
      "parent_id" uuid NULL REFERENCES "dcim_location" ("id") ON DELETE CASCADE,
      "status_id" uuid NOT NULL REFERENCES "extras_status" ("id") ON DELETE RESTRICT,
      "tenant_id" uuid NULL REFERENCES "tenancy_tenant" ("id") ON DELETE RESTRICT,
      "description" ${s(200)}, "facility" ${s(50)}, "asn" bigint NULL, "time_zone" ${s(50)},
      "physical_address" ${t}, "shipping_address" ${t}, "latitude" numeric(8,6) NULL, "longitude" numeric(9,6) NULL,
      "contact_name" ${s(100)}, "contact_phone" ${s(50)}, "contact_email" ${s(254)}, "comments" ${t},
      CONSTRAINT "dcim_location_parent_name_key" UNIQUE ("parent_id", "name"))`);
    for (const col of ['_name', 'name', 'location_type_id', 'status_id', 'tenant_id']) {
      await q.query(`CREATE INDEX "dcim_location_${col.replace(/^_/, 'n')}_idx" ON "dcim_location" ("${col}")`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'dcim_location', 'dcim_locationtype_content_types', 'dcim_locationtype', 'tenancy_tenant', 'tenancy_tenantgroup',
      'extras_taggeditem', 'extras_role_content_types', 'extras_role', 'extras_tag_content_types', 'extras_tag',
      'extras_status_content_types', 'extras_status', 'users_session', 'users_token', 'users_objectpermission_groups',
      'users_objectpermission_users', 'users_objectpermission_object_types', 'users_objectpermission', 'users_user_groups',
      'users_group', 'users_user', 'netkeel_seed',
    ]) {
      await q.query(`DROP TABLE IF EXISTS "${table}"`);
    }
  }
}
