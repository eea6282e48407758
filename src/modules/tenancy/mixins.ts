import { field } from '../../core/resource/fields';
import { mixin } from '../../core/resource/mixin';
import { tenantResource } from './resources/tenant.resource';

/**
 * An optional tenant (Nautobot's TenancyMixin), with the filters its filter-set mixin brings:
 * `tenant` and `tenant_id` (by name or id), and `tenant_group` (by name or id, with the group's
 * descendants).
 */
export const tenancyMixin = () =>
  mixin({
    fields: () => ({ tenant: field.foreignKey(() => tenantResource, { nullable: true, onDelete: 'protect' }) }),
    filterAliases: { tenant_group: 'tenant__tenant_group', tenant_id: 'tenant' },
  });
