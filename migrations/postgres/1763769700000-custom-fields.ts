import { MigrationInterface, QueryRunner } from 'typeorm';

/** Custom fields and their choices. PostgreSQL and PGlite. */
export class CustomFields1763769700000 implements MigrationInterface {
  name = 'CustomFields1763769700000';

  async up(q: QueryRunner): Promise<void> {
    const s = (n: number) => `varchar(${n}) COLLATE "C" NOT NULL`;
    const std = `"id" uuid PRIMARY KEY, "created" timestamptz NOT NULL, "last_updated" timestamptz NOT NULL`;
    await q.query(`CREATE TABLE "extras_customfield" (${std}, "label" ${s(50)}, "key" ${s(50)}, "type" ${s(50)}, "grouping" ${s(255)},
      "description" ${s(200)}, "required" boolean NOT NULL, "filter_logic" ${s(50)}, "default" jsonb NULL, "weight" integer NOT NULL,
      "validation_minimum" bigint NULL, "validation_maximum" bigint NULL, "validation_regex" ${s(500)}, "advanced_ui" boolean NOT NULL,
      CONSTRAINT "extras_customfield_key_key" UNIQUE ("key"), CONSTRAINT "extras_customfield_label_key" UNIQUE ("label"))`);
    await q.query(`CREATE TABLE "extras_customfield_content_types" ("customfield_id" uuid NOT NULL REFERENCES "extras_customfield" ("id") ON DELETE CASCADE,
      "content_type" ${s(100)}, PRIMARY KEY ("customfield_id", "content_type"))`);
    await q.query(`CREATE INDEX "extras_customfield_content_types_ct_idx" ON "extras_customfield_content_types" ("content_type")`);
    await q.query(`CREATE TABLE "extras_customfieldchoice" (${std}, "custom_field_id" uuid NOT NULL REFERENCES "extras_customfield" ("id") ON DELETE CASCADE,
      "value" ${s(100)}, "weight" integer NOT NULL, CONSTRAINT "extras_customfieldchoice_field_value_key" UNIQUE ("custom_field_id", "value"))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "extras_customfieldchoice"`);
    await q.query(`DROP TABLE "extras_customfield_content_types"`);
    await q.query(`DROP TABLE "extras_customfield"`);
  }
}
