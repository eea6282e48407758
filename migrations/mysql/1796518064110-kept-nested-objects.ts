import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables that became watched (their nested objects kept between requests: serialize/kept-nested.ts). */
const WATCHED = [
  'extras_status',
  'extras_status_content_types',
  'extras_role',
  'extras_role_content_types',
  'tenancy_tenantgroup',
  'tenancy_tenant',
  'dcim_locationtype',
  'dcim_locationtype_content_types',
  'dcim_location',
  'dcim_manufacturer',
  'dcim_platform',
  'dcim_devicetype',
  'ipam_namespace',
];
const EVENTS = ['insert', 'update', 'delete'];

/** Errors of a user that may not create triggers: left out, as migration 1796506446040 does (the caches stay off). */
const NOT_ALLOWED = new Set([1142, 1227, 1419]);

/**
 * Written by hand from `npm run migration:generate`'s statements (MySQL 8 and MariaDB): the
 * change-counting row triggers of migration 1796506446040 on the tables that became watched,
 * each dropped before it is made (a failed run is run again over what it left), and left out
 * with a warning for a user that may not create triggers.
 */
export class KeptNestedObjects1796518064110 implements MigrationInterface {
  name = 'KeptNestedObjects1796518064110';

  async up(q: QueryRunner): Promise<void> {
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
          console.warn(`netkeel: cannot create change triggers (${e.message}); caches of users, permissions, definitions and nested objects stay off on this database`);
          return;
        }
      }
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...WATCHED].reverse()) for (const event of EVENTS) await q.query(`DROP TRIGGER IF EXISTS \`${table}_notify_${event}\``);
  }
}
