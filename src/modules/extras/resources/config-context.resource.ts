import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { escapeLike } from '../../../core/resource/query/lookups';
import { dimensionFields, dimensionFilterAliases } from '../config-contexts/dimensions';
import { dataError } from '../../../core/json-schema/json-schema';
import { isObject, OBJECT_FORM, ownerFields, ownerObjectId } from '../config-contexts/owner';
import { jsonOf } from '../config-contexts/render';

/**
 * Weighted JSON data given to every device (and virtual machine) that matches its assignment:
 * locations (with their descendants), roles, device types, platforms, tenant groups (with
 * theirs), tenants and tags (config-contexts/dimensions.ts). A device's `config_context` merges
 * the active contexts that match it by weight, then name, and its local data on top
 * (config-contexts/extension.ts).
 */
export const configContextResource = defineResource({
  app: 'extras',
  model: 'configcontext',
  slug: 'config-contexts',
  verboseName: 'config context',
  naturalKey: ['name'],
  ordering: ['weight', 'name'],
  // Its catalogue (the active contexts and what they name) is kept between requests: config-contexts/catalogue.ts.
  watched: true,
  display: (r) => String(r.name),
  fields: {
    ...ownerFields(),
    name: field.string({ required: true, unique: true, maxLength: 255 }),
    owner_object_id: ownerObjectId(),
    weight: field.integer({ default: 1000, minValue: 0, maxValue: 32767 }),
    description: field.string({ maxLength: 255 }),
    is_active: field.boolean({ default: true }),
    data: field.json({ required: true }),
    config_context_schema: field.foreignKey(model('extras.configcontextschema'), {
      nullable: true,
      onDelete: 'setNull',
      relatedName: 'config_contexts',
      help: 'Optional schema to validate the structure of the data',
    }),
    ...dimensionFields(),
  },
  search: ['name', 'description'],
  filterAliases: { ...dimensionFilterAliases(), schema: 'config_context_schema' },
  filters: {
    /** `q` also looks into the data (the reference's `data__icontains`). */
    q: { compile: (values, _l, h) => h.exec.dialect.ilike(h.exec.dialect.castText(h.col('data')), `%${escapeLike(String(values[0]))}%`) },
  },
  features: ['notes'],
  rules(s) {
    const data = s.values.data;
    if (!isObject(data)) return { data: [OBJECT_FORM] };
    const schema = s.related('config_context_schema');
    if (schema) {
      const error = dataError(jsonOf(schema.data_schema), data);
      if (error) return { data: [`Validation using the JSON Schema ${schema.name} failed.`, error] };
    }
  },
});
