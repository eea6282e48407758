import { MigrationInterface, QueryRunner } from 'typeorm';

/** Custom fields and their choices. MySQL 8 and MariaDB. */
export class CustomFields1763769700000 implements MigrationInterface {
  name = 'CustomFields1763769700000';

  async up(q: QueryRunner): Promise<void> {
    const s = (n: number) => `varchar(${n}) NOT NULL`;
    const uuid = `char(36) NOT NULL`;
    const std = `\`id\` ${uuid} PRIMARY KEY, \`created\` datetime(6) NOT NULL, \`last_updated\` datetime(6) NOT NULL`;
    const tail = `ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`;
    await q.query(`CREATE TABLE \`extras_customfield\` (${std}, \`label\` ${s(50)}, \`key\` ${s(50)}, \`type\` ${s(50)}, \`grouping\` ${s(255)},
      \`description\` ${s(200)}, \`required\` tinyint(1) NOT NULL, \`filter_logic\` ${s(50)}, \`default\` json NULL, \`weight\` int NOT NULL,
      \`validation_minimum\` bigint NULL, \`validation_maximum\` bigint NULL, \`validation_regex\` ${s(500)}, \`advanced_ui\` tinyint(1) NOT NULL,
      UNIQUE KEY \`extras_customfield_key_key\` (\`key\`), UNIQUE KEY \`extras_customfield_label_key\` (\`label\`)) ${tail}`);
    await q.query(`CREATE TABLE \`extras_customfield_content_types\` (\`customfield_id\` ${uuid}, \`content_type\` ${s(100)},
      PRIMARY KEY (\`customfield_id\`, \`content_type\`), KEY \`extras_customfield_content_types_ct_idx\` (\`content_type\`),
      FOREIGN KEY (\`customfield_id\`) REFERENCES \`extras_customfield\` (\`id\`) ON DELETE CASCADE) ${tail}`);
    await q.query(`CREATE TABLE \`extras_customfieldchoice\` (${std}, \`custom_field_id\` ${uuid}, \`value\` ${s(100)}, \`weight\` int NOT NULL,
      UNIQUE KEY \`extras_customfieldchoice_field_value_key\` (\`custom_field_id\`, \`value\`),
      FOREIGN KEY (\`custom_field_id\`) REFERENCES \`extras_customfield\` (\`id\`) ON DELETE CASCADE) ${tail}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE `extras_customfieldchoice`');
    await q.query('DROP TABLE `extras_customfield_content_types`');
    await q.query('DROP TABLE `extras_customfield`');
  }
}
