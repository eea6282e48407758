import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { escapeLike } from '../../../core/resource/query/lookups';
import { named } from '../../../core/resource/mixin';
import { schemaError } from '../../../core/json-schema/json-schema';
import { isObject, ownerFields, ownerObjectId } from '../config-contexts/owner';

/**
 * A JSON Schema (draft 7) that config contexts and devices' local context data may be validated
 * against. The schema itself is checked against the draft 7 meta-schema and must describe an
 * object with properties, with the reference's messages.
 */
export const configContextSchemaResource = defineResource({
  app: 'extras',
  model: 'configcontextschema',
  slug: 'config-context-schemas',
  verboseName: 'config context schema',
  mixins: [named(255)],
  fields: {
    ...ownerFields(),
    description: field.string({ maxLength: 255 }),
    data_schema: field.json({ required: true, help: 'A JSON Schema document which is used to validate a config context object.' }),
    owner_object_id: ownerObjectId(),
  },
  search: ['name', 'description'],
  filters: {
    /** `q` also looks into the schema document (the reference's `data_schema__icontains`). */
    q: { compile: (values, _l, h) => h.exec.dialect.ilike(h.exec.dialect.castText(h.col('data_schema')), `%${escapeLike(String(values[0]))}%`) },
  },
  features: ['customFields', 'notes'],
  rules(s) {
    if (!s.touched.has('data_schema') && !s.create) return;
    const schema = s.values.data_schema;
    const error = schemaError(schema);
    if (error) return { data_schema: [error] };
    if (!isObject(schema) || !('properties' in schema) || schema.type !== 'object') {
      return { data_schema: ['Nautobot only supports context data in the form of an object and thus the JSON schema must be of type object and specify a set of properties.'] };
    }
  },
});
