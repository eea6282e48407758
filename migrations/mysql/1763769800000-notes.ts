import { MigrationInterface, QueryRunner } from 'typeorm';

/** Notes on objects. MySQL 8 and MariaDB. */
export class Notes1763769800000 implements MigrationInterface {
  name = 'Notes1763769800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE \`extras_note\` (\`id\` char(36) NOT NULL PRIMARY KEY, \`created\` datetime(6) NOT NULL, \`last_updated\` datetime(6) NOT NULL,
      \`assigned_object_type\` varchar(100) NOT NULL, \`assigned_object_id\` char(36) NOT NULL, \`user_id\` char(36) NULL, \`user_name\` varchar(150) NOT NULL,
      \`note\` longtext NOT NULL, KEY \`extras_note_assigned_idx\` (\`assigned_object_type\`, \`assigned_object_id\`), KEY \`extras_note_user_idx\` (\`user_id\`),
      FOREIGN KEY (\`user_id\`) REFERENCES \`users_user\` (\`id\`) ON DELETE SET NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE `extras_note`');
  }
}
