import type { ResourceDefinition } from '../resource/definition';
import type { Choices } from '../resource/fields';

/** A GraphQL name: letters, digits and underscores, not starting with a digit. */
export const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** "IP addresses" -> `ip_addresses` (the reference's str_to_var_name: words joined by underscores, lower case). */
export function varName(words: string): string {
  return words
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** The root list field of a model (`devices`, `ip_addresses`) and its single field (`device`, `ip_address`). */
export const listFieldName = (def: ResourceDefinition) => varName(def.verboseNamePlural);
export const singleFieldName = (def: ResourceDefinition) => varName(def.verboseName);

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/** The object type of a model, as graphene-django names it: the model's class name and `Type` (`DeviceType`, `IPAddressType`). */
export const typeName = (def: ResourceDefinition) => `${def.className}Type`;

/** The enum of a choice field, as the reference names it (Django choice enums, v3 naming): `DcimInterfaceTypeChoices`. */
export const enumName = (def: ResourceDefinition, field: string) => `${pascal(def.appLabel ?? def.app)}${pascal(def.className)}${pascal(field)}Choices`;

/**
 * The enum value of a choice, as graphene-django derives it from the stored value: non-word runs
 * become `_`, upper case, and `A_` before a name that is not a valid GraphQL name (`1000base-t`
 * -> `A_1000BASE_T`).
 */
export function choiceName(value: string | number): string {
  const name = String(value)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\W|^]+/g, '_')
    .toUpperCase();
  return GRAPHQL_NAME.test(name) ? name : `A_${name}`;
}

/** The enum values of a choice list: name -> stored value; a value whose name another took first is left out. */
export function choiceValues(choices: Choices): Map<string, string | number> {
  const out = new Map<string, string | number>();
  for (const [value] of choices) {
    const name = choiceName(value);
    if (GRAPHQL_NAME.test(name) && !out.has(name) && name !== 'true' && name !== 'false' && name !== 'null') out.set(name, value);
  }
  return out;
}
