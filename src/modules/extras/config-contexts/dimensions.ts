import { model } from '../../../core/resource/definition';
import { field, ManyToManyField } from '../../../core/resource/fields';

/**
 * What a config context may be assigned to: each dimension is a many-to-many field of
 * `extras.configcontext` and the way an object (a device, a virtual machine) finds its own
 * value(s) for it. A context matches an object when, for every dimension, the context names
 * none, or names one of the object's values (for a tree, the value or one of its ancestors).
 */
export interface Dimension {
  /** The context's many-to-many field (`locations`), also its link table's suffix. */
  field: string;
  /** The object type it links to. */
  target: string;
  /**
   * Paths from the object to its value(s) in the filter language, the first one the model has
   * wins (a device's `location`; a virtual machine's `cluster__location`); an object of a model
   * that has none has no value, so only contexts that name nothing of the dimension match it, as
   * in the reference's query (a virtual machine and a context with device types).
   */
  paths: string[];
  /** The value's ancestors match too (locations, tenant groups). */
  tree?: boolean;
  /** The reference's filters on config contexts that name it (`location`, `location_id`). */
  filters: string[];
  /**
   * The object's values are the dynamic groups it is a member of now (computed by the groups'
   * own conditions, not read from a path): `paths` is empty.
   */
  groups?: boolean;
  /** limit_choices_to of the context's field, in the filter language. */
  limit?: Record<string, unknown>;
}

const dim = (field: string, target: string, paths: string[], filters: string[], tree = false, more: Partial<Dimension> = {}): Dimension => ({ field, target, paths, filters, tree, ...more });

/**
 * One line per dimension, in the reference's field order. `dynamic_groups` (groups of devices or
 * virtual machines) is on: the reference has it behind CONFIG_CONTEXT_DYNAMIC_GROUPS_ENABLED.
 */
export const DIMENSIONS: Dimension[] = [
  dim('locations', 'dcim.location', ['location', 'cluster__location'], ['location', 'location_id'], true),
  dim('roles', 'extras.role', ['role'], ['role']),
  dim('device_types', 'dcim.devicetype', ['device_type'], ['device_type', 'device_type_id']),
  dim('platforms', 'dcim.platform', ['platform'], ['platform', 'platform_id']),
  dim('cluster_groups', 'virtualization.clustergroup', ['cluster__cluster_group'], ['cluster_group', 'cluster_group_id']),
  dim('clusters', 'virtualization.cluster', ['cluster'], ['cluster_id']),
  dim('tenant_groups', 'tenancy.tenantgroup', ['tenant__tenant_group'], ['tenant_group', 'tenant_group_id'], true),
  dim('tenants', 'tenancy.tenant', ['tenant'], ['tenant', 'tenant_id']),
  dim('device_redundancy_groups', 'dcim.deviceredundancygroup', ['device_redundancy_group'], ['device_redundancy_group']),
  dim('tags', 'extras.tag', ['tags'], ['tag']),
  dim('dynamic_groups', 'extras.dynamicgroup', [], [], false, { groups: true, limit: { content_type: ['dcim.device', 'virtualization.virtualmachine'] } }),
];

export const CONTEXT_TABLE = 'extras_configcontext';
export const CONTEXT_SOURCE = 'configcontext_id';

/** The link table and its columns of a dimension. */
export function dimensionThrough(d: Dimension): ManyToManyField['through'] {
  return { table: `${CONTEXT_TABLE}_${d.field}`, source: CONTEXT_SOURCE, target: `${d.target.split('.')[1]}_id` };
}

/** The context's many-to-many fields, one per dimension (written through the API, not CSV, as other many-to-many fields). */
export function dimensionFields(): Record<string, ManyToManyField> {
  return Object.fromEntries(DIMENSIONS.map((d) => [d.field, field.manyToMany(model(d.target), dimensionThrough(d), { writable: true, relatedName: '+', ...(d.limit ? { limit: () => d.limit as Record<string, unknown> } : {}) })]));
}

/** The reference's filter names, each an alias of its dimension's field filter. */
export function dimensionFilterAliases(): Record<string, string> {
  return Object.fromEntries(DIMENSIONS.flatMap((d) => d.filters.map((f) => [f, d.field])));
}
