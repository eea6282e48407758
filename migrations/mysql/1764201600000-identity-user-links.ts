import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which users an identity source may link its identities to (identity_userlink), and the
 * sources' link_existing / link_match settings. MySQL 8 and MariaDB 10.11+.
 *
 * Upgrading keeps every identity's user: each (source, user) pair an identity already links is
 * recorded as a link of origin `legacy`, so the invariant "an identity's user is linked to the
 * identity's source" holds from the start.
 */
export class IdentityUserLinks1764201600000 implements MigrationInterface {
  name = 'IdentityUserLinks1764201600000';

  async up(q: QueryRunner): Promise<void> {
    const s = (n: number) => `varchar(${n}) NOT NULL`;
    const uuid = `char(36) NOT NULL`;
    const tail = `ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`;
    const fk = (col: string, table: string, action: string) => `FOREIGN KEY (\`${col}\`) REFERENCES \`${table}\` (\`id\`) ON DELETE ${action}`;
    await q.query(`ALTER TABLE \`identity_identitysource\` ADD COLUMN \`link_existing\` tinyint(1) NOT NULL DEFAULT 0,
      ADD COLUMN \`link_match\` ${s(20)} DEFAULT 'username_and_email'`);
    await q.query(`CREATE TABLE \`identity_userlink\` (\`id\` ${uuid} PRIMARY KEY, \`created\` datetime(6) NOT NULL, \`last_updated\` datetime(6) NOT NULL,
      \`source_id\` ${uuid}, \`user_id\` ${uuid}, \`origin\` ${s(16)},
      UNIQUE KEY \`identity_userlink_source_user_key\` (\`source_id\`, \`user_id\`), KEY \`identity_userlink_user_id_idx\` (\`user_id\`),
      ${fk('source_id', 'identity_identitysource', 'CASCADE')}, ${fk('user_id', 'users_user', 'CASCADE')}) ${tail}`);
    // Times are stored in UTC (the connection's time zone is Z).
    await q.query(`INSERT INTO \`identity_userlink\` (\`id\`, \`created\`, \`last_updated\`, \`source_id\`, \`user_id\`, \`origin\`)
      SELECT UUID(), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), p.\`source_id\`, p.\`user_id\`, 'legacy'
      FROM (SELECT DISTINCT \`source_id\`, \`user_id\` FROM \`identity_externalidentity\` WHERE \`user_id\` IS NOT NULL) p`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS \`identity_userlink\``);
    await q.query(`ALTER TABLE \`identity_identitysource\` DROP COLUMN \`link_match\`, DROP COLUMN \`link_existing\``);
  }
}
