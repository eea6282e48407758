import { model } from '../../../core/resource/definition';
import type { ModelExtension } from '../../../core/resource/extension';
import { field } from '../../../core/resource/fields';
import { unscoped } from '../../../core/resource/query/rows';
import { ident, inList, sql } from '../../../database/sql';
import { dataError } from '../../../core/json-schema/json-schema';
import { isObject, OBJECT_FORM } from './owner';
import { jsonOf, Matches, matchContexts, renderContext } from './render';
import { catalogueFor } from './catalogue';
import { DIMENSIONS } from './dimensions';
import { linkedGroupMembers } from '../groups/config-contexts';

export const CONFIG_CONTEXT_SCHEMA = 'extras.configcontextschema';

/** Python's truth of a JSON value (the reference tests `if self.local_config_context_data`). */
const truthy = (v: unknown) => !(v === null || v === undefined || v === false || v === 0 || v === '' || (Array.isArray(v) && !v.length) || (isObject(v) && !Object.keys(v).length));

const nothing = () => null;

/**
 * Config contexts on every model with the `configContexts` feature (devices; virtual machines
 * when they come): `local_config_context_data` (an object) and `local_config_context_schema`
 * it is validated against, filters `local_config_context_data` (has data) and
 * `local_config_context_schema[_id]`, and `config_context` (`include=config_context`, and on
 * write responses): the active contexts that match the object merged by weight then name, its
 * local data on top, for a whole batch in one statement (render.ts).
 */
export const configContextsExtension: ModelExtension = {
  feature: 'configContexts',
  fields: () => ({
    local_config_context_data: field.json({ nullable: true }),
    local_config_context_schema: field.foreignKey(model(CONFIG_CONTEXT_SCHEMA), {
      nullable: true,
      onDelete: 'setNull',
      relatedName: '+',
      help: 'Optional schema to validate the structure of the data',
    }),
    // Owned local data comes from Git repositories, which netkeel does not have: always null.
    local_config_context_data_owner_content_type: field.computed([], { type: 'string', nullable: true, readOnly: true }, nothing, { filter: false, sortable: false }),
    local_config_context_data_owner_object_id: field.computed([], { type: 'string', format: 'uuid', nullable: true, readOnly: true }, nothing, { filter: false, sortable: false }),
  }),
  filterAliases: { local_config_context_schema_id: 'local_config_context_schema' },
  filters: {
    /** Objects with (true) or without (false) local context data. */
    local_config_context_data: {
      boolean: true,
      compile: (values, _l, h) => (values[values.length - 1] ? sql`${h.col('local_config_context_data')} IS NOT NULL` : sql`${h.col('local_config_context_data')} IS NULL`),
    },
  },
  write: {
    /** The reference's ConfigContextModel.clean(): an object, a schema only with data, the data valid against it. */
    async prepare({ ctx, exec }, items) {
      const schemaIds = [...new Set(items.map((i) => i.values.local_config_context_schema_id).filter(Boolean).map(String))];
      const schemas = new Map<string, { name: string; data_schema: unknown }>();
      if (schemaIds.length) {
        // The schema the write named (its reference was resolved within the writer's view).
        const def = ctx.registry.get(CONFIG_CONTEXT_SCHEMA)!;
        const rows = await exec.query<{ id: string; name: string; data_schema: unknown }>(
          sql`SELECT ${ident('id')}, ${ident('name')}, ${ident('data_schema')} ${unscoped(def).from(inList(ident('id'), schemaIds))}`,
        );
        for (const r of rows) schemas.set(String(r.id), { name: r.name, data_schema: jsonOf(r.data_schema) });
      }
      for (const item of items) {
        const data = item.values.local_config_context_data;
        if (truthy(data) && !isObject(data)) {
          item.addError('local_config_context_data', OBJECT_FORM);
          continue;
        }
        const schema = schemas.get(String(item.values.local_config_context_schema_id ?? ''));
        if (!schema) continue;
        if (!truthy(data)) {
          item.addError('local_config_context_schema', 'Local config context data must exist for a schema to be applied.');
          continue;
        }
        const error = dataError(schema.data_schema, data);
        if (error) {
          item.addError('local_config_context_data', `Validation using the JSON Schema ${schema.name} failed.`);
          item.addError('local_config_context_data', error);
        }
      }
    },
  },
  represent: {
    keys: { config_context: { schema: { type: 'object', additionalProperties: true }, type: 'json', label: 'Config context' } },
    include: 'config_context',
    async load({ exec, ctx, def }, rows) {
      const catalogue = await catalogueFor(ctx, exec);
      // Dynamic groups' memberships are worked out only when some active context names a group.
      const groups = DIMENSIONS.some((d, k) => d.groups && catalogue.dims.has(k)) ? await linkedGroupMembers(ctx, exec, def) : [];
      return matchContexts(exec, def, rows.map((r) => String(r.id)), catalogue, groups);
    },
    write(out, row, _url, loaded) {
      out.config_context = renderContext(loaded as Matches, String(row.id), row.local_config_context_data);
    },
    /** GraphQL's `config_context`, as the reference's device and virtual machine types have it. */
    graphql: () => ({ fields: { config_context: { type: 'JSON', read: (o) => o.config_context } } }),
  },
};
