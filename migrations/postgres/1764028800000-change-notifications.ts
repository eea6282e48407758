import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tables whose changes other netkeel processes must hear of: they cache what they read from
 * them (a token's user, a user's permissions).
 */
const WATCHED = [
  'users_token',
  'users_user',
  'users_group',
  'users_user_groups',
  'users_objectpermission',
  'users_objectpermission_object_types',
  'users_objectpermission_users',
  'users_objectpermission_groups',
];

/**
 * Every statement that changes rows of a watched table notifies the `netkeel_changes` channel
 * with the table's name, delivered when its transaction commits (ChangeFeed). PostgreSQL and
 * PGlite (where the one process that holds the data directory hears its own statements instead).
 */
export class ChangeNotifications1764028800000 implements MigrationInterface {
  name = 'ChangeNotifications1764028800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION "netkeel_notify_change"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('netkeel_changes', TG_TABLE_NAME);
        RETURN NULL;
      END $$`);
    for (const table of WATCHED) {
      await q.query(`CREATE TRIGGER "${table}_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}"
        FOR EACH STATEMENT EXECUTE FUNCTION "netkeel_notify_change"()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of WATCHED) await q.query(`DROP TRIGGER IF EXISTS "${table}_notify_change" ON "${table}"`);
    await q.query(`DROP FUNCTION IF EXISTS "netkeel_notify_change"()`);
  }
}
