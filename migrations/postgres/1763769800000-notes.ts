import { MigrationInterface, QueryRunner } from 'typeorm';

/** Notes on objects. PostgreSQL and PGlite. */
export class Notes1763769800000 implements MigrationInterface {
  name = 'Notes1763769800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "extras_note" ("id" uuid PRIMARY KEY, "created" timestamptz NOT NULL, "last_updated" timestamptz NOT NULL,
      "assigned_object_type" varchar(100) COLLATE "C" NOT NULL, "assigned_object_id" uuid NOT NULL,
      "user_id" uuid NULL REFERENCES "users_user" ("id") ON DELETE SET NULL, "user_name" varchar(150) COLLATE "C" NOT NULL,
      "note" text COLLATE "C" NOT NULL)`);
    await q.query(`CREATE INDEX "extras_note_assigned_idx" ON "extras_note" ("assigned_object_type", "assigned_object_id")`);
    await q.query(`CREATE INDEX "extras_note_user_idx" ON "extras_note" ("user_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "extras_note"`);
  }
}
