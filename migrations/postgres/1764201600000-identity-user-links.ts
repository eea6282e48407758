import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which users an identity source may link its identities to (identity_userlink), and the
 * sources' link_existing / link_match settings. PostgreSQL and PGlite.
 *
 * Upgrading keeps every identity's user: each (source, user) pair an identity already links is
 * recorded as a link of origin `legacy`, so the invariant "an identity's user is linked to the
 * identity's source" holds from the start.
 */
export class IdentityUserLinks1764201600000 implements MigrationInterface {
  name = 'IdentityUserLinks1764201600000';

  async up(q: QueryRunner): Promise<void> {
    const s = (n: number) => `varchar(${n}) COLLATE "C" NOT NULL`;
    await q.query(`ALTER TABLE "identity_identitysource" ADD COLUMN "link_existing" boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE "identity_identitysource" ADD COLUMN "link_match" ${s(20)} DEFAULT 'username_and_email'`);
    await q.query(`CREATE TABLE "identity_userlink" ("id" uuid PRIMARY KEY, "created" timestamptz NOT NULL, "last_updated" timestamptz NOT NULL,
      "source_id" uuid NOT NULL REFERENCES "identity_identitysource" ("id") ON DELETE CASCADE,
      "user_id" uuid NOT NULL REFERENCES "users_user" ("id") ON DELETE CASCADE,
      "origin" ${s(16)}, CONSTRAINT "identity_userlink_source_user_key" UNIQUE ("source_id", "user_id"))`);
    await q.query(`CREATE INDEX "identity_userlink_user_id_idx" ON "identity_userlink" ("user_id")`);
    await q.query(`INSERT INTO "identity_userlink" ("id", "created", "last_updated", "source_id", "user_id", "origin")
      SELECT gen_random_uuid(), now(), now(), p."source_id", p."user_id", 'legacy'
      FROM (SELECT DISTINCT "source_id", "user_id" FROM "identity_externalidentity" WHERE "user_id" IS NOT NULL) p`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS "identity_userlink"`);
    await q.query(`ALTER TABLE "identity_identitysource" DROP COLUMN IF EXISTS "link_match"`);
    await q.query(`ALTER TABLE "identity_identitysource" DROP COLUMN IF EXISTS "link_existing"`);
  }
}
