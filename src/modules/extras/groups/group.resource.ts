import { defineResource, model, WriteContext } from '../../../core/resource/definition';
import { ValidationError, FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { isUuid, parseUuid } from '../../../core/resource/query/values';
import { filterCompiler } from '../../../core/resource/query/scope';
import { CONTENT_TYPE_LENGTH } from '../../../core/resource/storage';
import { ident, inList, sql } from '../../../database/sql';
import { tenancyMixin } from '../../tenancy/mixins';
import { filterParams } from '../relationships/definitions';
import { GROUP_TYPES, groupable, MEMBERSHIP_TYPE, STATIC_ASSOCIATION_TYPE } from './definitions';

const isDict = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The reference's ContentTypeField messages for a type no group may hold. */
export function contentTypeError(w: WriteContext, type: string): string | null {
  const target = w.ctx.registry.get(type);
  if (target && groupable(target)) return null;
  return /^\w+\.\w+$/.test(type) ? `Invalid content type: ${type}` : "Invalid value. Specify a content type as '<app_label>.<model_name>'.";
}

/**
 * The reference's clean_filter(): a dict; only a filter-defined group has one; its keys and
 * values are what the content type's REST list accepts, compiled by the same filter compiler as
 * a query string (in the writer's view), so its errors are the list's (`Unknown filter field`,
 * `Select a valid choice. ...`), keyed by the filter's keys as the reference reports them.
 */
async function filterErrors(w: WriteContext, type: string, groupType: string, filter: unknown): Promise<FieldErrors | void> {
  if (!isDict(filter)) return { filter: ['Filter must be a dict'] };
  if (groupType !== 'dynamic-filter') {
    if (Object.keys(filter).length) return { filter: ['Filter can only be set for groups of type `dynamic-filter`.'] };
    return;
  }
  const target = w.ctx.registry.get(type)!;
  // Membership by membership could name the group itself: groups of groups are dynamic-set groups.
  const nested = Object.keys(filter).find((k) => k.startsWith('dynamic_groups'));
  if (nested) return { [nested]: ['A filter cannot name dynamic groups; use a group of type `dynamic-set`.'] };
  try {
    await filterCompiler(w.ctx, w.exec).fromQuery(target, filterParams(filter), 'vf');
  } catch (e) {
    if (e instanceof ValidationError && isDict(e.errors)) return e.errors as FieldErrors;
    throw e;
  }
}

/**
 * A group of objects of one content type (Nautobot's DynamicGroup): filter-defined (`filter`, in
 * the filter language of the content type's REST list), a group of groups (`dynamic-set`: its
 * `children` are extras.dynamicgroupmembership objects combining other groups with union,
 * intersection and difference) or static (its members are extras.staticgroupassociation
 * objects). `GET dynamic-groups/<id>/members/` lists what it holds now (groups/members.ts).
 */
export const dynamicGroupResource = defineResource({
  app: 'extras',
  model: 'dynamicgroup',
  slug: 'dynamic-groups',
  verboseName: 'dynamic group',
  mixins: [named(255), tenancyMixin()],
  ordering: ['content_type', 'name'],
  fields: {
    description: field.string({ maxLength: 255 }),
    group_type: field.choice(GROUP_TYPES, { default: 'dynamic-filter', maxLength: 16 }),
    content_type: field.string({
      required: true,
      maxLength: CONTENT_TYPE_LENGTH,
      help: 'The type of object contained in this group.',
      immutable: 'ContentType cannot be changed once created',
    }),
    filter: field.json({ default: () => ({}), help: 'A JSON-encoded dictionary of filter parameters defining membership of this group' }),
    children: field.manyToMany(
      model(MEMBERSHIP_TYPE),
      { table: 'extras_dynamicgroupmembership', source: 'parent_group_id', target: 'id' },
      { readOnly: true, filter: false, relatedName: '+', help: '"Child" groups that are combined together to define membership of this group' },
    ),
  },
  search: ['name', 'description', 'content_type'],
  filters: {
    /** Groups holding these objects statically (the reference's `static_group_associations__associated_object_id`). */
    member_id: {
      lookups: ['', 'n'],
      async compile(values, _l, h) {
        const ids = values.map((v) => (isUuid(v) ? parseUuid(v) : h.invalid(`“${String(v)}” is not a valid UUID.`)));
        const links = await h.rows(h.ctx.registry.get(STATIC_ASSOCIATION_TYPE)!, 'sm');
        return sql`${h.col('id')} IN ${links.select('dynamic_group_id', inList(ident('sm', 'associated_object_id'), ids))}`;
      },
    },
  },
  features: ['tags', 'customFields', 'notes'],
  async rules(s, w) {
    const type = String(s.values.content_type ?? '');
    if (s.touched.has('content_type')) {
      const error = contentTypeError(w, type);
      if (error) return { content_type: [error] };
    }
    if (s.create || s.touched.has('filter') || s.touched.has('group_type')) {
      return filterErrors(w, type, String(s.values.group_type ?? 'dynamic-filter'), s.values.filter ?? {});
    }
  },
});
