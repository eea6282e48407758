import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables netkeel's caches watch as of this migration (PostgreSQL's have had notify triggers). */
const WATCHED = [
  'extras_computedfield',
  'extras_configcontext',
  'extras_configcontext_cluster_groups',
  'extras_configcontext_clusters',
  'extras_configcontext_device_redundancy_groups',
  'extras_configcontext_device_types',
  'extras_configcontext_dynamic_groups',
  'extras_configcontext_locations',
  'extras_configcontext_platforms',
  'extras_configcontext_roles',
  'extras_configcontext_tags',
  'extras_configcontext_tenant_groups',
  'extras_configcontext_tenants',
  'extras_customfield',
  'extras_customfield_content_types',
  'extras_customfieldchoice',
  'extras_job',
  'extras_jobhook',
  'extras_jobhook_content_types',
  'extras_jobqueue',
  'extras_relationship',
  'extras_webhook',
  'extras_webhook_content_types',
  'users_group',
  'users_objectpermission',
  'users_objectpermission_groups',
  'users_objectpermission_object_types',
  'users_objectpermission_users',
  'users_token',
  'users_user',
  'users_user_groups',
];
const EVENTS = ['insert', 'update', 'delete'];

/**
 * Errors of a user that may not create triggers (MySQL 8 with binary logging needs SUPER or
 * log_bin_trust_function_creators): the triggers are left out, and netkeel's caches stay off on
 * this database (ChangePoller checks the triggers before it trusts a count).
 */
const NOT_ALLOWED = new Set([1142, 1227, 1419]);

/**
 * Written by hand (MySQL 8 and MariaDB 10.11+): change counts, so that the caches other processes
 * keep of watched tables can hear of changes, as PostgreSQL's notifications tell them.
 * - netkeel_change_counts: per watched table and slot (the writing connection's id: no two
 *   transactions count in one row; slot 0: what the poller folded there from connections'
 *   rows), the number of rows changed; ChangePoller reads the sums.
 * - on every watched table, three row triggers (`<table>_notify_insert`, `_update`, `_delete`)
 *   that count each row inserted, updated or deleted.
 */
export class ChangeCounts1796506446040 implements MigrationInterface {
  name = 'ChangeCounts1796506446040';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      // IF NOT EXISTS, and each trigger dropped before it is made: MySQL's DDL is not transactional,
      // so a run that failed midway is run again over what it left.
      'CREATE TABLE IF NOT EXISTS `netkeel_change_counts` (`table_name` varchar(64) NOT NULL, `slot` bigint NOT NULL, `changes` bigint NOT NULL DEFAULT 0, ' +
        'PRIMARY KEY (`table_name`, `slot`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
    );
    for (const table of WATCHED) {
      for (const event of EVENTS) {
        try {
          await q.query(`DROP TRIGGER IF EXISTS \`${table}_notify_${event}\``);
          await q.query(
            `CREATE TRIGGER \`${table}_notify_${event}\` AFTER ${event.toUpperCase()} ON \`${table}\` FOR EACH ROW ` +
              `INSERT INTO \`netkeel_change_counts\` (\`table_name\`, \`slot\`, \`changes\`) VALUES ('${table}', CONNECTION_ID(), 1) ` +
              'ON DUPLICATE KEY UPDATE `changes` = `changes` + 1',
          );
        } catch (err) {
          const e = err as { errno?: number; driverError?: { errno?: number }; message: string };
          if (!NOT_ALLOWED.has(e.errno ?? e.driverError?.errno ?? 0)) throw err;
          console.warn(`netkeel: cannot create change triggers (${e.message}); caches of users, permissions and definitions stay off on this database`);
          return;
        }
      }
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...WATCHED].reverse()) for (const event of EVENTS) await q.query(`DROP TRIGGER IF EXISTS \`${table}_notify_${event}\``);
    await q.query('DROP TABLE `netkeel_change_counts`');
  }
}
