import type { ModelExtension } from '../../../core/resource/extension';
import { BadRequestError, NotFoundError } from '../../../core/resource/errors';
import { objectType } from '../../../core/resource/definition';
import { visibleRows } from '../../../core/resource/query/scope';
import { ident, sql } from '../../../database/sql';
import { addPath, PathTree, templateObjects } from '../computed-fields/objects';
import { EXPORT_MAX_OBJECTS, exportTemplates } from './export-render';
import { exportTemplateResource } from './export-template.resource';

/** Names a template may use on the list itself rather than on one of its objects (`queryset.first.name`). */
const LIST_MEMBERS = new Set(['first', 'last', 'size']);

/**
 * The object paths a template reads, from the variables it names: `queryset.first.name` and the
 * paths of every other variable (the loop variable of `{% for d in queryset %}`, an `assign`ed
 * one), minus their first name, are read of the list's objects. An over-estimate: it only decides
 * which related objects are loaded.
 */
function objectPaths(source: string): PathTree {
  const tree: PathTree = new Map();
  const t = exportTemplates.compile(source);
  for (const path of t.variables) {
    const rest = path[0] === 'queryset' ? path.slice(1).filter((p, i) => !(i === 0 && (LIST_MEMBERS.has(p) || /^\d+$/.test(p)))) : path.slice(1);
    addPath(tree, rest);
  }
  return tree;
}

/**
 * `?export=<name>` on any model's list (core/resource/list-export.ts): the export template of
 * that name for the model, among those the requester may view (none: 404, as the reference's
 * get_object_or_404), rendered over `queryset`, the list's objects as computed fields see `obj`
 * (their fields, custom fields, and the related objects the template follows, within the
 * requester's view). A render that fails or passes a bound is a 400 naming the template, never
 * a 500; so is a list larger than EXPORT_MAX_OBJECTS.
 */
export const exportTemplatesExtension: ModelExtension = {
  listExport: {
    param: 'export',
    async render({ ctx, exec, def }, name, rows) {
      const visible = await visibleRows(ctx, exec, exportTemplateResource, 'e');
      const [et] = await exec.query(
        sql`SELECT e.* ${visible.from(sql`e.${ident('content_type')} = ${objectType(def)}`, sql`e.${ident('name')} = ${name}`)}`,
      );
      if (!et) throw new NotFoundError('No ExportTemplate matches the given query.');
      const list = await rows(EXPORT_MAX_OBJECTS);
      if (list.length > EXPORT_MAX_OBJECTS) {
        throw new BadRequestError(`The export template ${et.name} renders at most ${EXPORT_MAX_OBJECTS} objects; filter the list to fewer.`);
      }
      const objects = await templateObjects(ctx, exec, def, list, objectPaths(String(et.template_code)));
      const queryset = list.map((r) => objects.get(String(r.id)));
      const out = exportTemplates.render(exportTemplates.compile(String(et.template_code)), { queryset });
      if (out.error !== undefined) throw new BadRequestError(`There was an error rendering the selected export template (${et.name}): ${out.error}`);
      const extension = et.file_extension ? `.${et.file_extension}` : '';
      return {
        body: out.value.replace(/\r\n/g, '\n'),
        contentType: String(et.mime_type || 'text/plain'),
        filename: `netkeel_${def.verboseNamePlural}${extension}`,
      };
    },
  },
};
