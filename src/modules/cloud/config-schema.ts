import { dataError, schemaError } from '../../core/json-schema/json-schema';

/**
 * Why `value` fails a resource type's `config_schema`, or undefined: draft 7 with format checks
 * (the reference's Draft7Validator for cloud resource types), only where the schema is a
 * non-empty object (Python's truthiness, as the reference tests it); a schema that cannot be used
 * is reported as such. The messages are the core JSON Schema module's (Python jsonschema's words).
 */
export function configError(schema: unknown, value: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || !Object.keys(schema).length) return undefined;
  const bad = schemaError(schema);
  if (bad) return `Invalid config_schema: ${bad}`;
  return dataError(schema, value ?? null);
}
