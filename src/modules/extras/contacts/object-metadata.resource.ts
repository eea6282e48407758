import { CustomFilterHelpers, defineResource } from '../../../core/resource/definition';
import { Sql, TRUE } from '../../../database/sql';
import { field } from '../../../core/resource/fields';
import { escapeLike } from '../../../core/resource/query/lookups';
import { metadataAssociable } from './associable';
import { contactOrTeam } from './contact-or-team';
import { metadataTypeResource } from './metadata-type.resource';
import { validateObjectMetadata } from './object-metadata.rules';
import { scopedFieldsError } from './metadata-value';

const valueContains = (text: string, h: CustomFilterHelpers): Sql =>
  text.trim() ? h.exec.dialect.ilike(h.exec.dialect.castText(h.col('_value')), `%${escapeLike(text.trim())}%`) : TRUE;

/**
 * Metadata of one type on one object (any model that takes metadata), for all its fields or
 * those `scoped_fields` names: a value checked against the type's data type (and choices), or,
 * for the contact-or-team type, a contact or a team. Deleted with its object; a type, contact
 * or team in use cannot be deleted.
 */
export const objectMetadataResource = defineResource({
  app: 'extras',
  model: 'objectmetadata',
  slug: 'object-metadata',
  verboseName: 'object metadata',
  verboseNamePlural: 'object metadata',
  naturalKey: ['id'],
  ordering: ['metadata_type'],
  displayUses: { metadata_type: ['id', 'name'] },
  // "<type> - <object> - <value>": the object by its id (its name would need its own row).
  display: (r, h) => `${h.related('metadata_type')?.name ?? ''} - ${String(r.assigned_object_id)} - ${r._value === null || r._value === undefined ? '' : typeof r._value === 'string' ? r._value : JSON.stringify(r._value)}`,
  mixins: [contactOrTeam({ onDelete: 'protect', relatedName: 'object_metadata' })],
  fields: {
    metadata_type: field.foreignKey(() => metadataTypeResource, { required: true, onDelete: 'protect', relatedName: 'object_metadata' }),
    scoped_fields: field.json({ default: () => [], listOf: { type: 'string' }, validate: scopedFieldsError, help: 'List of scoped fields, only direct fields on the model' }),
    value: field.json({ column: '_value', nullable: true, help: 'Relevant data value to an object field or a set of object fields' }),
    assigned_object: field.genericForeignKey({ allowed: metadataAssociable, required: true }),
  },
  indexes: [
    ['assigned_object_type', 'assigned_object_id', 'contact_id'],
    ['assigned_object_type', 'assigned_object_id', 'team_id'],
  ],
  search: ['metadata_type__name'],
  filters: {
    /** Objects whose value's text contains this, case-insensitively (a blank value matches all). */
    value: { compile: (values, _l, h) => valueContains(String(values[values.length - 1] ?? ''), h) },
    /** The free-text search also looks in the value. */
    q: { compile: (values, _l, h) => valueContains(String(values[0] ?? ''), h) },
  },
  validateBatch: validateObjectMetadata,
});
