import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables custom field definitions are read from: every process keeps the definitions. */
const WATCHED = ['extras_customfield', 'extras_customfield_content_types', 'extras_customfieldchoice'];

/**
 * A change to custom field definitions notifies the `netkeel_changes` channel, as changes to
 * credentials do (ChangeNotifications1764028800000, whose function this reuses): another process
 * drops the definitions it keeps as soon as the change is committed, instead of after
 * DEFINITION_CACHE_SECONDS.
 */
export class CustomFieldNotifications1764115200000 implements MigrationInterface {
  name = 'CustomFieldNotifications1764115200000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of WATCHED) {
      await q.query(`CREATE TRIGGER "${table}_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}"
        FOR EACH STATEMENT EXECUTE FUNCTION "netkeel_notify_change"()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of WATCHED) await q.query(`DROP TRIGGER IF EXISTS "${table}_notify_change" ON "${table}"`);
  }
}
