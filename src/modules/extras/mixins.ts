import { objectType } from '../../core/resource/definition';
import { field } from '../../core/resource/fields';
import { mixin } from '../../core/resource/mixin';
import { roleResource } from './resources/role.resource';
import { statusResource } from './resources/status.resource';

/**
 * A status (Nautobot's StatusField): one of the statuses enabled for the model's content type,
 * filtered by name or id. Required unless `{ required: false }` (a VRF's). `defaults`: the
 * statuses enabled for the model on first start, as the reference's defaults for it (every
 * default status when not given).
 */
export const statusMixin = (o: { required?: boolean; defaults?: readonly string[] } = {}) =>
  mixin({
    fields: () => ({
      status: field.foreignKey(() => statusResource, {
        ...(o.required === false ? { nullable: true } : { required: true }),
        ...(o.defaults ? { seedNames: o.defaults } : {}),
        onDelete: 'protect',
        limit: (owner) => ({ content_types: objectType(owner) }),
      }),
    }),
    features: ['statuses'],
  });

/**
 * A role (Nautobot's RoleField): one of the roles enabled for the model's content type. Optional
 * unless `{ required: true }` (a device's). `defaults`: roles made and enabled for the model on
 * first start, as the reference makes them (an IP address's Loopback, VIP, ...).
 */
export const roleMixin = (o: { required?: boolean; defaults?: readonly string[] } = {}) =>
  mixin({
    fields: () => ({
      role: field.foreignKey(() => roleResource, {
        ...(o.required ? { required: true } : { nullable: true }),
        ...(o.defaults ? { seedNames: o.defaults } : {}),
        onDelete: 'protect',
        limit: (owner) => ({ content_types: objectType(owner) }),
      }),
    }),
    features: ['roles'],
  });
