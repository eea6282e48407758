import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Identity intake: sources, external identities, their roles, lookup keys and history, and
 * the users' status_check_after. PostgreSQL and PGlite.
 */
export class Identity1763942400000 implements MigrationInterface {
  name = 'Identity1763942400000';

  async up(q: QueryRunner): Promise<void> {
    const s = (n: number) => `varchar(${n}) COLLATE "C" NOT NULL`;
    const std = `"id" uuid PRIMARY KEY, "created" timestamptz NOT NULL, "last_updated" timestamptz NOT NULL`;
    await q.query(`CREATE TABLE "identity_identitysource" (${std}, "name" ${s(100)}, "slug" ${s(100)}, "description" ${s(200)},
      "enabled" boolean NOT NULL, "username_identifier_type" ${s(100)}, "affiliation_groups" jsonb NOT NULL DEFAULT '{}',
      "role_groups" jsonb NOT NULL DEFAULT '{}', "status_on_delete" ${s(2)}, "grace_period_days" integer NOT NULL,
      CONSTRAINT "identity_identitysource_name_key" UNIQUE ("name"), CONSTRAINT "identity_identitysource_slug_key" UNIQUE ("slug"))`);
    await q.query(`CREATE TABLE "identity_externalidentity" (${std},
      "source_id" uuid NOT NULL REFERENCES "identity_identitysource" ("id") ON DELETE RESTRICT,
      "sor_id" ${s(255)}, "name" ${s(255)}, "email" ${s(254)},
      "user_id" uuid NULL REFERENCES "users_user" ("id") ON DELETE SET NULL,
      "status" ${s(2)}, "primary_role_id" uuid NULL, "message" jsonb NOT NULL, "message_hash" ${s(64)},
      "last_received" timestamptz NOT NULL, "role_summary" jsonb NOT NULL DEFAULT '[]', "applied_status" ${s(20)}, "applied_groups" jsonb NOT NULL DEFAULT '[]',
      "next_transition" timestamptz NULL,
      CONSTRAINT "identity_externalidentity_source_sor_key" UNIQUE ("source_id", "sor_id"))`);
    for (const col of ['user_id', 'name', 'email', 'primary_role_id']) {
      await q.query(`CREATE INDEX "identity_externalidentity_${col}_idx" ON "identity_externalidentity" ("${col}")`);
    }
    await q.query(`CREATE TABLE "identity_externalidentityrole" (${std},
      "identity_id" uuid NOT NULL REFERENCES "identity_externalidentity" ("id") ON DELETE CASCADE,
      "role_identifier" ${s(255)}, "affiliation" ${s(255)}, "status" ${s(2)}, "status_since" timestamptz NOT NULL,
      "grace_until" timestamptz NULL, "rank" integer NULL, "valid_from" timestamptz NULL, "valid_through" timestamptz NULL,
      "title" ${s(255)}, "organization" ${s(255)}, "department" ${s(255)}, "missing_since" timestamptz NULL, "data" jsonb NOT NULL,
      CONSTRAINT "identity_externalidentityrole_identity_role_key" UNIQUE ("identity_id", "role_identifier"))`);
    for (const col of ['affiliation', 'status']) {
      await q.query(`CREATE INDEX "identity_externalidentityrole_${col}_idx" ON "identity_externalidentityrole" ("${col}")`);
    }
    await q.query(`ALTER TABLE "identity_externalidentity" ADD CONSTRAINT "identity_externalidentity_primary_role_fk"
      FOREIGN KEY ("primary_role_id") REFERENCES "identity_externalidentityrole" ("id") ON DELETE SET NULL`);
    // Every identifier and (lower-cased) email of an identity's last message, for the filters.
    await q.query(`CREATE TABLE "identity_externalidentity_key" (
      "identity_id" uuid NOT NULL REFERENCES "identity_externalidentity" ("id") ON DELETE CASCADE,
      "kind" ${s(16)}, "value" ${s(255)}, PRIMARY KEY ("identity_id", "kind", "value"))`);
    await q.query(`CREATE INDEX "identity_externalidentity_key_value_idx" ON "identity_externalidentity_key" ("kind", "value")`);
    await q.query(`CREATE TABLE "identity_externalidentityhistory" ("id" uuid PRIMARY KEY,
      "identity_id" uuid NOT NULL REFERENCES "identity_externalidentity" ("id") ON DELETE CASCADE,
      "seq" integer NOT NULL, "time" timestamptz NOT NULL, "action" ${s(20)},
      "actor_id" uuid NULL REFERENCES "users_user" ("id") ON DELETE SET NULL, "actor_name" ${s(150)}, "changes" jsonb NOT NULL,
      CONSTRAINT "identity_externalidentityhistory_identity_seq_key" UNIQUE ("identity_id", "seq"))`);
    // From when the auth guard consults the user status providers (null: never); kept by the
    // identity access service, read with the credential so other users cost no statement.
    await q.query(`ALTER TABLE "users_user" ADD COLUMN "status_check_after" timestamptz NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "users_user" DROP COLUMN IF EXISTS "status_check_after"`);
    await q.query(`ALTER TABLE "identity_externalidentity" DROP CONSTRAINT IF EXISTS "identity_externalidentity_primary_role_fk"`);
    for (const table of ['identity_externalidentityhistory', 'identity_externalidentity_key', 'identity_externalidentityrole', 'identity_externalidentity', 'identity_identitysource']) {
      await q.query(`DROP TABLE IF EXISTS "${table}"`);
    }
  }
}
