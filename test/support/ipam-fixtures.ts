import { defineResource } from '../../src/core/resource/definition';
import { ResourceRegistry } from '../../src/core/resource/registry';
import type { TestApp } from '../../src/core/testing/harness';
import { ident, join, sql } from '../../src/database/sql';

/** A deterministic interface id for fixture n. */
export const interfaceId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/**
 * The interface models arrive with DCIM. Until then, addresses are assigned to interfaces that
 * are validated by object type through the registry; this installs a minimal `dcim.interface`
 * (a table of ids and a registry entry) so the assignment endpoint can be exercised end to end.
 */
export async function installInterfaceStandIn(t: TestApp, ns: number[]): Promise<void> {
  await t.db.execute(sql`CREATE TABLE ${ident('test_interface')} (${ident('id')} char(36) PRIMARY KEY)`);
  await t.db.execute(sql`INSERT INTO ${ident('test_interface')} (${ident('id')}) VALUES ${join(ns.map((n) => sql`(${interfaceId(n)})`))}`);
  t.app.get(ResourceRegistry).add(
    defineResource({
      app: 'dcim',
      model: 'interface',
      slug: 'interfaces',
      table: 'test_interface',
      naturalKey: ['id'],
      ordering: ['id'],
      display: (r) => String(r.id),
      fields: {},
    }),
  );
}
