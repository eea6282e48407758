import { objectType, ResourceDefinition } from '../../../core/resource/definition';

export const GROUP_TYPE = 'extras.dynamicgroup';
export const MEMBERSHIP_TYPE = 'extras.dynamicgroupmembership';
export const STATIC_ASSOCIATION_TYPE = 'extras.staticgroupassociation';

/** The reference's DynamicGroupTypeChoices. */
export const GROUP_TYPES = [
  ['dynamic-filter', 'Filter-defined'],
  ['dynamic-set', 'Group of groups'],
  ['static', 'Static assignment'],
] as const;

/** The reference's DynamicGroupOperatorChoices. */
export const GROUP_OPERATORS = [
  ['union', 'Include (OR)'],
  ['intersection', 'Restrict (AND)'],
  ['difference', 'Exclude (NOT)'],
] as const;

/** Config contexts take groups of these content types only (the reference's limit_dynamic_group_choices). */
export const CONFIG_CONTEXT_GROUP_TYPES = ['dcim.device', 'virtualization.virtualmachine'];

/**
 * Models a dynamic group may hold (the reference's `dynamic_groups` feature: its PrimaryModel and
 * OrganizationalModel subclasses, `is_dynamic_group_associable_model`): the writable models with
 * custom fields, but the group machinery's own.
 */
export const groupable = (d: ResourceDefinition) =>
  d.features.includes('customFields') && !d.readOnly && ![GROUP_TYPE, STATIC_ASSOCIATION_TYPE, MEMBERSHIP_TYPE].includes(objectType(d));

/** What the membership of one group needs of its row. */
export interface GroupInfo {
  id: string;
  name: string;
  contentType: string;
  groupType: string;
  filter: Record<string, unknown>;
}

/** One child of a dynamic-set group. */
export interface MembershipInfo {
  parent: string;
  group: string;
  operator: string;
  weight: number;
}
