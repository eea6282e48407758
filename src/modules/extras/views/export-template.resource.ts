import { defineResource, model, ResourceDefinition } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { ref } from '../../../core/resource/serialize/batch';
import { contentTypeLabel } from '../content-types/content-types';
import { contentTypeError, contentTypeField } from '../content-types/field';
import { exportTemplates } from './export-render';

/** Models that may own export templates (the reference's `export_template_owners`: Git repositories, not in netkeel yet). */
export const EXPORT_TEMPLATE_OWNERS = 'exportTemplateOwners';
const mayOwn = (d: ResourceDefinition) => d.features.includes(EXPORT_TEMPLATE_OWNERS);

/** A MIME type as a header can carry it: `type/subtype`, parameters allowed, printable ASCII only. */
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=("[\x20-\x21\x23-\x7e]*"|[\w.+-]+))*$/;
/** An extension a file name can carry (no quotes, separators or control characters). */
const FILE_EXTENSION = /^[\w.+-]*$/;

const definedModel = (type: string): ResourceDefinition | undefined => {
  try {
    return model(type)();
  } catch {
    return undefined;
  }
};
const typeLabel = (type: unknown) => {
  const [app, name] = String(type ?? '').split('.');
  return contentTypeLabel(definedModel(String(type)), app, name ?? '');
};

/**
 * A template that renders a model's list as a file (the reference's ExportTemplate): asked for
 * with `?export=<name>` on the list (export.ts), over `queryset`, the whole filtered list the
 * requester may view. The template is checked by the template sandbox when saved. An export
 * template may have an owner (a Git repository in the reference); none can be named yet.
 */
export const exportTemplateResource = defineResource({
  app: 'extras',
  model: 'exporttemplate',
  slug: 'export-templates',
  verboseName: 'export template',
  naturalKey: ['content_type', 'name'],
  ordering: ['content_type', 'name'],
  display: (r) => {
    const own = r.owner_content_type ? `[${typeLabel(r.owner_content_type)} ${r.owner_object_id ?? ''}] ` : '';
    return `${own}${typeLabel(r.content_type)}: ${r.name}`;
  },
  fields: {
    owner_content_type: contentTypeField({ required: false, nullable: true }),
    owner_object_id: field.uuid({ nullable: true }),
    owner: field.computed(['owner_content_type', 'owner_object_id'], { type: 'object', nullable: true, additionalProperties: true }, (row, ctx) => {
      const type = row.owner_content_type ? String(row.owner_content_type) : null;
      const target = type ? ctx.registry.get(type) : undefined;
      return target && row.owner_object_id ? ref(ctx, target, String(row.owner_object_id)) : null;
    }),
    content_type: contentTypeField(),
    name: field.string({ required: true, maxLength: 255 }),
    description: field.string({ maxLength: 255, filter: false }),
    template_code: field.text({ required: true, filter: false, help: 'The list of objects being exported is passed as a context variable named queryset.' }),
    mime_type: field.string({ maxLength: 255, label: 'MIME type', filter: false, help: 'Defaults to text/plain' }),
    file_extension: field.string({ maxLength: 255, filter: false, help: 'Extension to append to the rendered filename' }),
  },
  uniqueTogether: [{ fields: ['content_type', 'name'] }],
  search: ['name', 'owner_content_type', 'content_type', 'description'],
  features: ['notes'],
  rules(s, { ctx }) {
    const v = s.values;
    const errors: Record<string, string[]> = {};
    if (s.touched.has('content_type')) {
      const problem = contentTypeError(ctx, String(v.content_type ?? ''));
      if (problem) errors.content_type = [problem];
    }
    if (s.touched.has('owner_content_type') && v.owner_content_type) {
      const problem = contentTypeError(ctx, String(v.owner_content_type), mayOwn);
      if (problem) errors.owner_content_type = [problem];
    }
    const problem = exportTemplates.validate(String(v.template_code ?? ''));
    if (problem) errors.template_code = [`Template syntax error: ${problem}`];
    if (v.mime_type && !MIME_TYPE.test(String(v.mime_type))) errors.mime_type = ['Enter a valid MIME type, such as text/csv or application/json.'];
    // The reference's clean(): the extension is stored without its leading dot.
    if (typeof v.file_extension === 'string' && v.file_extension.startsWith('.')) v.file_extension = v.file_extension.slice(1);
    if (v.file_extension && !FILE_EXTENSION.test(String(v.file_extension))) errors.file_extension = ['Enter a valid file extension: letters, digits, ".", "_", "+" and "-".'];
    return errors;
  },
});
