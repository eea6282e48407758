import type { RequestContext } from '../../../core/context';
import type { ResourceDefinition } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { CONTENT_TYPE_LENGTH } from '../../../core/resource/storage';

/** One content type as `<app_label>.<model>` (the reference's ContentTypeField): a string, filtered exactly. */
export const contentTypeField = (o: { required?: boolean; nullable?: boolean; help?: string; label?: string } = {}) =>
  field.string({ maxLength: CONTENT_TYPE_LENGTH, required: o.required ?? true, nullable: o.nullable, help: o.help, label: o.label });

/**
 * Why a content type written to such a field is refused (the reference's messages), or null: it
 * must name a registered model that `allowed` accepts.
 */
export function contentTypeError(ctx: RequestContext, type: string, allowed: (d: ResourceDefinition) => boolean = () => true): string | null {
  const target = ctx.registry.get(type);
  if (target && allowed(target)) return null;
  return /^\w+\.\w+$/.test(type) ? `Invalid content type: ${type}` : "Invalid value. Specify a content type as '<app_label>.<model_name>'.";
}
