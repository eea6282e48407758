import { objectType } from '../../core/resource/definition';
import { field } from '../../core/resource/fields';
import { mixin } from '../../core/resource/mixin';
import { configError } from './config-schema';
import { cloudResourceTypeResource } from './resources/cloud-resource-type.resource';

/** A JSON column's value as stored, whatever the driver returned (MariaDB gives text). */
function stored(v: unknown): unknown {
  if (Buffer.isBuffer(v)) v = v.toString('utf8');
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/**
 * What a cloud network or service is (Nautobot's CloudResourceTypeMixin): a cloud resource type
 * enabled for the model's content type, and its `extra_config`, which must satisfy the type's
 * `config_schema` where the type has one (JSON Schema draft 7, the reference's messages).
 */
export const cloudResourceTypeMixin = () =>
  mixin({
    fields: () => ({
      cloud_resource_type: field.foreignKey(() => cloudResourceTypeResource, {
        required: true,
        onDelete: 'protect',
        limit: (owner) => ({ content_types: objectType(owner) }),
      }),
      extra_config: field.json({ nullable: true }),
    }),
    features: ['cloudResourceTypes'],
    rules(s) {
      const type = s.related('cloud_resource_type');
      if (!type) return;
      const config = s.touched.has('extra_config') ? (s.values.extra_config ?? null) : stored(s.values.extra_config);
      const error = configError(stored(type.config_schema), config);
      if (error) return { extra_config: [`Validation according to CloudResourceType ${type.name} config_schema failed.`, error] };
    },
  });
