import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Identity intake for MySQL 8 and MariaDB 10.11+: sources, external identities, their roles,
 * lookup keys and history, and the users' status_check_after (UUIDs as char(36), JSON as
 * `json`, times as datetime(6) in UTC).
 */
export class Identity1763942400000 implements MigrationInterface {
  name = 'Identity1763942400000';

  async up(q: QueryRunner): Promise<void> {
    const s = (n: number) => `varchar(${n}) NOT NULL`;
    const uuid = `char(36) NOT NULL`;
    const std = `\`id\` ${uuid} PRIMARY KEY, \`created\` datetime(6) NOT NULL, \`last_updated\` datetime(6) NOT NULL`;
    const tail = `ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`;
    const fk = (col: string, table: string, action: string) => `FOREIGN KEY (\`${col}\`) REFERENCES \`${table}\` (\`id\`) ON DELETE ${action}`;
    await q.query(`CREATE TABLE \`identity_identitysource\` (${std}, \`name\` ${s(100)}, \`slug\` ${s(100)}, \`description\` ${s(200)},
      \`enabled\` tinyint(1) NOT NULL, \`username_identifier_type\` ${s(100)}, \`affiliation_groups\` json NOT NULL,
      \`role_groups\` json NOT NULL, \`status_on_delete\` ${s(2)}, \`grace_period_days\` int NOT NULL,
      UNIQUE KEY \`identity_identitysource_name_key\` (\`name\`), UNIQUE KEY \`identity_identitysource_slug_key\` (\`slug\`)) ${tail}`);
    await q.query(`CREATE TABLE \`identity_externalidentity\` (${std}, \`source_id\` ${uuid}, \`sor_id\` ${s(255)}, \`name\` ${s(255)},
      \`email\` ${s(254)}, \`user_id\` char(36) NULL, \`status\` ${s(2)}, \`primary_role_id\` char(36) NULL, \`message\` json NOT NULL,
      \`message_hash\` ${s(64)}, \`last_received\` datetime(6) NOT NULL, \`role_summary\` json NOT NULL, \`applied_status\` ${s(20)}, \`applied_groups\` json NOT NULL,
      \`next_transition\` datetime(6) NULL,
      UNIQUE KEY \`identity_externalidentity_source_sor_key\` (\`source_id\`, \`sor_id\`),
      KEY \`identity_externalidentity_user_id_idx\` (\`user_id\`), KEY \`identity_externalidentity_name_idx\` (\`name\`),
      KEY \`identity_externalidentity_email_idx\` (\`email\`), KEY \`identity_externalidentity_primary_role_id_idx\` (\`primary_role_id\`),
      ${fk('source_id', 'identity_identitysource', 'RESTRICT')}, ${fk('user_id', 'users_user', 'SET NULL')}) ${tail}`);
    await q.query(`CREATE TABLE \`identity_externalidentityrole\` (${std}, \`identity_id\` ${uuid}, \`role_identifier\` ${s(255)},
      \`affiliation\` ${s(255)}, \`status\` ${s(2)}, \`status_since\` datetime(6) NOT NULL, \`grace_until\` datetime(6) NULL,
      \`rank\` int NULL, \`valid_from\` datetime(6) NULL, \`valid_through\` datetime(6) NULL, \`title\` ${s(255)},
      \`organization\` ${s(255)}, \`department\` ${s(255)}, \`missing_since\` datetime(6) NULL, \`data\` json NOT NULL,
      UNIQUE KEY \`identity_externalidentityrole_identity_role_key\` (\`identity_id\`, \`role_identifier\`),
      KEY \`identity_externalidentityrole_affiliation_idx\` (\`affiliation\`), KEY \`identity_externalidentityrole_status_idx\` (\`status\`),
      ${fk('identity_id', 'identity_externalidentity', 'CASCADE')}) ${tail}`);
    await q.query(`ALTER TABLE \`identity_externalidentity\` ADD CONSTRAINT \`identity_externalidentity_primary_role_fk\`
      ${fk('primary_role_id', 'identity_externalidentityrole', 'SET NULL')}`);
    // Every identifier and (lower-cased) email of an identity's last message, for the filters.
    await q.query(`CREATE TABLE \`identity_externalidentity_key\` (\`identity_id\` ${uuid}, \`kind\` ${s(16)}, \`value\` ${s(255)},
      PRIMARY KEY (\`identity_id\`, \`kind\`, \`value\`), KEY \`identity_externalidentity_key_value_idx\` (\`kind\`, \`value\`),
      ${fk('identity_id', 'identity_externalidentity', 'CASCADE')}) ${tail}`);
    await q.query(`CREATE TABLE \`identity_externalidentityhistory\` (\`id\` ${uuid} PRIMARY KEY, \`identity_id\` ${uuid},
      \`seq\` int NOT NULL, \`time\` datetime(6) NOT NULL, \`action\` ${s(20)}, \`actor_id\` char(36) NULL, \`actor_name\` ${s(150)},
      \`changes\` json NOT NULL, UNIQUE KEY \`identity_externalidentityhistory_identity_seq_key\` (\`identity_id\`, \`seq\`),
      KEY \`identity_externalidentityhistory_actor_idx\` (\`actor_id\`),
      ${fk('identity_id', 'identity_externalidentity', 'CASCADE')}, ${fk('actor_id', 'users_user', 'SET NULL')}) ${tail}`);
    // From when the auth guard consults the user status providers (null: never); kept by the
    // identity access service, read with the credential so other users cost no statement.
    await q.query(`ALTER TABLE \`users_user\` ADD COLUMN \`status_check_after\` datetime(6) NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE \`identity_externalidentity\` DROP FOREIGN KEY \`identity_externalidentity_primary_role_fk\``);
    for (const table of ['identity_externalidentityhistory', 'identity_externalidentity_key', 'identity_externalidentityrole', 'identity_externalidentity', 'identity_identitysource']) {
      await q.query(`DROP TABLE IF EXISTS \`${table}\``);
    }
    await q.query(`ALTER TABLE \`users_user\` DROP COLUMN \`status_check_after\``);
  }
}
