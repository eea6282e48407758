import type { WriteContext } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { constant } from '../../../core/resource/serialize/json-encoder';
import { ident, sql } from '../../../database/sql';
import { locationResource } from '../../dcim/resources/location.resource';

const FAMILIES: Record<number, object> = { 4: constant({ value: 4, label: 'IPv4' }), 6: constant({ value: 6, label: 'IPv6' }) };

export const familyField = () =>
  field.computed(
    ['ip_version'],
    { type: 'object', readOnly: true, properties: { value: { type: 'integer', enum: [4, 6] }, label: { type: 'string', enum: ['IPv4', 'IPv6'] } } },
    (r) => FAMILIES[Number(r.ip_version)] ?? { value: Number(r.ip_version), label: `IPv${Number(r.ip_version)}` },
  );

/**
 * `locations` (API 2.2+) and the legacy single `location` (shown in 2.0/2.1, write-only after)
 * over one through table; `requiredBefore22`: a create in 2.0/2.1 must name the location (prefixes).
 */
export const locationFields = (table: string, source: string, requiredBefore22 = false) => {
  const through = { table, source, target: 'location_id' };
  return {
    locations: field.manyToMany(() => locationResource, through, { writable: true, tree: true, versions: { min: '2.2' } }),
    location: field.manyToMany(() => locationResource, through, {
      writable: true,
      single: true,
      tree: true,
      readVersions: { max: '2.1' },
      ...(requiredBefore22 ? { requiredVersions: { max: '2.1' } } : {}),
    }),
  };
};

export const GLOBAL_NAMESPACE = 'Global';
export const GLOBAL_NAMESPACE_DESCRIPTION = 'Default Global namespace. Created by netkeel.';

/** The Global namespace's id (the default namespace of prefixes and VRFs), once per request. */
export function globalNamespace(w: WriteContext): Promise<string | null> {
  return w.ctx.memo('ipam.namespace:Global', async () => {
    const [row] = await w.exec.query<{ id: string }>(sql`SELECT ${ident('id')} FROM ${ident('ipam_namespace')} WHERE ${ident('name')} = ${GLOBAL_NAMESPACE}`);
    return row ? String(row.id) : null;
  });
}
