import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Written by hand (PostgreSQL and PGlite): identity history becomes a view of the change log.
 * - extras_objectchange: new columns _detail jsonb NULL (a writer's own account of a change) and
 *   _seq integer NULL (its number among the object's accounts)
 * - every identity_externalidentityhistory entry becomes a change record of its identity
 *   (change_context `unknown`, detail `identity history`; the entry as `_detail`), then the
 *   table is dropped. `down` recreates the table from the records that carry an account and
 *   removes the records this migration made.
 */
export class IdentityHistoryInChangeLog1795790000000 implements MigrationInterface {
  name = 'IdentityHistoryInChangeLog1795790000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "extras_objectchange" ADD COLUMN "_detail" jsonb NULL`);
    await q.query(`ALTER TABLE "extras_objectchange" ADD COLUMN "_seq" integer NULL`);
    await q.query(`INSERT INTO "extras_objectchange" ("id", "created", "last_updated", "time", "user_id", "user_name", "request_id", "action",
        "changed_object_type", "changed_object_id", "change_context", "change_context_detail", "related_object_type", "related_object_id",
        "object_repr", "object_data", "object_data_v2", "_detail", "_seq")
      SELECT h."id", h."time", h."time", h."time", h."actor_id", CASE WHEN h."actor_id" IS NULL AND h."actor_name" = '' THEN 'Undefined' ELSE h."actor_name" END,
        gen_random_uuid(), CASE WHEN h."action" = 'create' THEN 'create' ELSE 'update' END,
        'identity.externalidentity', h."identity_id", 'unknown', 'identity history', NULL, NULL,
        CASE WHEN btrim(i."name") = '' THEN h."identity_id"::text ELSE left(btrim(i."name"), 200) END, '{}'::jsonb, NULL,
        jsonb_build_object('action', h."action", 'changes', h."changes"), h."seq"
      FROM "identity_externalidentityhistory" h JOIN "identity_externalidentity" i ON i."id" = h."identity_id"`);
    await q.query(`DROP TABLE "identity_externalidentityhistory"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "identity_externalidentityhistory" ("id" uuid PRIMARY KEY,
      "identity_id" uuid NOT NULL REFERENCES "identity_externalidentity" ("id") ON DELETE CASCADE,
      "seq" integer NOT NULL, "time" timestamptz NOT NULL, "action" varchar(20) COLLATE "C" NOT NULL,
      "actor_id" uuid NULL REFERENCES "users_user" ("id") ON DELETE SET NULL, "actor_name" varchar(150) COLLATE "C" NOT NULL, "changes" jsonb NOT NULL,
      CONSTRAINT "identity_externalidentityhistory_identity_seq_key" UNIQUE ("identity_id", "seq"))`);
    await q.query(`CREATE INDEX "identity_externalidentityhistory_actor_id_idx" ON "identity_externalidentityhistory" ("actor_id")`);
    await q.query(`INSERT INTO "identity_externalidentityhistory" ("id", "identity_id", "seq", "time", "action", "actor_id", "actor_name", "changes")
      SELECT c."id", c."changed_object_id", c."_seq", c."time", c."_detail"->>'action', c."user_id",
        CASE WHEN c."user_id" IS NULL AND c."user_name" = 'Undefined' THEN '' ELSE c."user_name" END, c."_detail"->'changes'
      FROM "extras_objectchange" c JOIN "identity_externalidentity" i ON i."id" = c."changed_object_id"
      WHERE c."changed_object_type" = 'identity.externalidentity' AND c."_seq" IS NOT NULL`);
    await q.query(`DELETE FROM "extras_objectchange" WHERE "change_context" = 'unknown' AND "change_context_detail" = 'identity history'`);
    await q.query(`ALTER TABLE "extras_objectchange" DROP COLUMN "_seq"`);
    await q.query(`ALTER TABLE "extras_objectchange" DROP COLUMN "_detail"`);
  }
}
