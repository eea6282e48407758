import { CustomFilterHelpers, defineResource, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { same } from '../../../core/resource/resource-writer';
import { ident, inList, or, raw, sql } from '../../../database/sql';
import { formatAddress, IpError, IpVersion, parseNetwork } from '../ip';
import { lookupFilter, networkFilter, parentFilter, PREFIX_COLUMNS, searchFilter } from '../network-filters';
import { checkDeletable, checkOrphans, lockNamespaces, placePrefixes, releasePrefixes } from '../parents';
import { prefixUtilization } from '../utilization';
import { familyField, globalNamespace, locationFields } from './common';
import { column } from '../../../database/schema/schema';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { namespaceResource } from './namespace.resource';
import { rirResource } from './rir.resource';
import { vlanResource } from './vlan.resource';
import { vrfResource } from './vrf.resource';
import { presentInVrfFilter, vrfFilter } from './vrf-filters';

export const PREFIX_TYPES = [
  ['container', 'Container'],
  ['network', 'Network'],
  ['pool', 'Pool'],
] as const;

/** Network columns of a prefix written as CIDR (host bits cleared, as the reference does). */
export function prefixColumns(value: unknown): Record<string, unknown> | string {
  try {
    const n = parseNetwork(value);
    return { network: n.network, broadcast: n.broadcast, prefix_length: n.length, ip_version: n.version, network_text: formatAddress(n.version, n.network) };
  } catch (e) {
    if (e instanceof IpError) return e.message;
    throw e;
  }
}

/** Did this write move the prefix (network, length, family or namespace)? */
const moved = (s: WriteState) =>
  !s.existing || ['network', 'prefix_length', 'ip_version', 'namespace_id'].some((c) => !same(s.existing![c], s.values[c]));

export const prefixResource = defineResource({
  app: 'ipam',
  model: 'prefix',
  // Read by a location's counts or every model's tags: kept with a detail (serialize/kept-values.ts).
  watched: true,
  slug: 'prefixes',
  verboseName: 'prefix',
  verboseNamePlural: 'prefixes',
  naturalKey: ['namespace', 'network', 'prefix_length'],
  // By namespace id rather than name: the order an index can serve at a million prefixes.
  ordering: ['namespace_id', 'ip_version', 'network', 'prefix_length'],
  mixins: [statusMixin(), roleMixin(), tenancyMixin()],
  columns: { network: column.bytes(16), broadcast: column.bytes(16), network_text: column.string(45) },
  indexes: [
    ['namespace_id', 'ip_version', 'network', 'prefix_length', 'id'],
    ['namespace_id', 'ip_version', 'prefix_length'],
    ['ip_version', 'network', 'prefix_length'],
    ['ip_version', 'broadcast'],
    ['network_text'],
  ],
  display: (r, h) => `${r.network_text}/${r.prefix_length}: ${h.related('namespace')?.name ?? ''}`,
  displayUses: { namespace: ['name'] },
  fields: {
    prefix: field.composite({
      columns: ['network', 'broadcast', 'prefix_length', 'ip_version', 'network_text'],
      schema: { type: 'string', example: '10.0.0.0/24' },
      required: true,
      read: (r) => `${r.network_text}/${r.prefix_length}`,
      parse: prefixColumns,
    }),
    family: familyField(),
    network: field.computed(['network_text'], { type: 'string', readOnly: true }, (r) => r.network_text, { sortColumns: ['network'] }),
    broadcast: field.computed(['broadcast', 'ip_version'], { type: 'string', readOnly: true }, (r) => formatAddress(Number(r.ip_version) as IpVersion, r.broadcast), {
      sortColumns: ['broadcast'],
    }),
    prefix_length: field.integer({ readOnly: true }),
    type: field.choice(PREFIX_TYPES, { default: 'network', maxLength: 50 }),
    parent: field.foreignKey(() => prefixResource, { readOnly: true, nullable: true, onDelete: 'setNull', dbOnDelete: 'restrict', help: 'The parent Prefix of this Prefix.' }),
    ip_version: field.integer({ readOnly: true, label: 'IP Version' }),
    ...locationFields('ipam_prefixlocationassignment', 'prefix_id', true),
    namespace: field.foreignKey(() => namespaceResource, { onDelete: 'protect', default: globalNamespace }),
    vlan: field.foreignKey(() => vlanResource, { nullable: true, onDelete: 'protect', label: 'VLAN' }),
    rir: field.foreignKey(() => rirResource, { nullable: true, onDelete: 'protect', label: 'RIR' }),
    date_allocated: field.datetime({ nullable: true, help: 'Date this prefix was allocated to an RIR, reserved in IPAM, etc.' }),
    description: field.string({ maxLength: 255 }),
    vrfs: field.manyToMany(() => vrfResource, { table: 'ipam_vrfprefixassignment', source: 'prefix_id', target: 'vrf_id' }, { readOnly: true, filter: false }),
    utilization: {
      ...field.computed([], { type: 'number', readOnly: true, description: 'Percentage of the prefix in use' }, () => null, { nested: false }),
      load: prefixUtilization,
    },
  },
  filters: {
    network: networkFilter(PREFIX_COLUMNS),
    prefix: lookupFilter(PREFIX_COLUMNS, 'net_equals'),
    within: lookupFilter(PREFIX_COLUMNS, 'net_contained'),
    within_include: lookupFilter(PREFIX_COLUMNS, 'net_contained_or_equal'),
    contains: lookupFilter(PREFIX_COLUMNS, (v) => (v.includes('/') ? 'net_contains_or_equals' : 'net_host')),
    mask_length: { lookups: ['gte', 'lte', 'gt', 'lt', 'n'], compile: maskLength },
    parent: parentFilter(() => prefixResource),
    vrf: vrfFilter('prefix'),
    present_in_vrf: presentInVrfFilter('prefix'),
    q: searchFilter(PREFIX_COLUMNS),
  },
  uniqueTogether: [
    {
      fields: ['namespace', 'prefix'],
      columns: ['namespace_id', 'prefix_length', 'network'],
      db: ['namespace_id', 'network', 'prefix_length'],
      field: '__all__',
      message: 'Prefix with this Namespace, Network and Prefix length already exists.',
    },
  ],
  search: ['description'],
  features: ['tags', 'customFields', 'notes', 'locations'],
  async rules(s, w) {
    const errors: FieldErrors = {};
    if (!s.values.namespace_id) errors.namespace = ['This field is required.'];
    if (!s.existing) return errors;
    const netChanged = ['network', 'prefix_length', 'ip_version'].some((c) => !same(s.existing![c], s.values[c]));
    const nsChanged = String(s.existing.namespace_id) !== String(s.values.namespace_id);
    if (netChanged && nsChanged) errors.__all__ = ['Cannot change network and namespace in the same update. Consider creating a new Prefix instead.'];
    else if (nsChanged) {
      const [vrf] = await w.exec.query(sql`SELECT 1 AS x FROM ${ident('ipam_vrfprefixassignment')} WHERE ${ident('prefix_id')} = ${s.values.id} LIMIT 1`);
      if (vrf) errors.namespace = ['Cannot move to a different Namespace while associated to VRFs in the current Namespace. Remove all VRFs from this Prefix before making this change.'];
    }
    return errors;
  },
  /**
   * A prefix that may move (or go) needs its namespace exclusively: take it before the row
   * lock, the order allocation and creation use, so a move and an allocation cannot deadlock.
   */
  async beforeRowLock(rows, inputs, w) {
    if (inputs && !inputs.some((i) => 'prefix' in i || 'namespace' in i)) return;
    await lockNamespaces(w.exec, rows.map((r) => String(r.namespace_id)), true);
  },
  async beforeSave(states, w) {
    const touched = states.filter(moved);
    await lockNamespaces(w.exec, touched.flatMap((s) => [String(s.values.namespace_id), s.existing ? String(s.existing.namespace_id) : '']), true);
  },
  async afterSave(_ids, w, states) {
    const changed = states.filter(moved);
    if (!changed.length) return;
    const removed = changed.filter((s) => s.existing).map((s) => s.existing!);
    const orphaned = await releasePrefixes(w.exec, removed);
    await placePrefixes(w.exec, changed.map((s) => s.values));
    if (orphaned.size) await checkOrphans(w.exec, removed.map((r) => String(r.namespace_id)));
  },
  async beforeDelete(rows, w) {
    await lockNamespaces(w.exec, rows.map((r) => String(r.namespace_id)), true);
    await checkDeletable(w.exec, rows);
    await releasePrefixes(w.exec, rows);
  },
});

/** mask_length (and its lookups): the prefix length. */
function maskLength(values: unknown[], lookup: string, h: CustomFilterHelpers) {
  const lengths = values.map((v) => (/^\s*\d{1,3}\s*$/.test(String(v)) ? Number(v) : h.invalid('A valid integer is required.')));
  const col = h.col('prefix_length');
  if (lookup === '') return inList(col, lengths);
  const op = raw({ gte: ' >= ', lte: ' <= ', gt: ' > ', lt: ' < ' }[lookup] ?? ' = ');
  return or(lengths.map((n) => sql`${col}${op}${n}`));
}
