import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { isUuid, parseUuid } from '../../../core/resource/query/values';
import { ident, inList, sql } from '../../../database/sql';
import { relatable } from '../relationships/definitions';
import { validateAssociations } from '../relationships/associations';
import { relationshipResource } from './relationship.resource';

/**
 * One link of a relationship: a source object and a destination object (for a symmetric
 * relationship, two peers), each named by content type and id. Deleted with either object, by
 * any delete (a generic key pointing at it), and with its relationship. The reference's rules:
 * types as the relationship says, no object with itself, the cardinality, the side filters, and
 * no swapped duplicate of a symmetric link.
 */
export const relationshipAssociationResource = defineResource({
  app: 'extras',
  model: 'relationshipassociation',
  slug: 'relationship-associations',
  verboseName: 'relationship association',
  naturalKey: ['relationship', 'source_id', 'destination_id'],
  ordering: ['relationship', 'created'],
  displayUses: { relationship: ['id', 'label', 'type'] },
  display: (r, h) => {
    const rel = h.related('relationship');
    const arrow = rel && String(rel.type).startsWith('symmetric') ? '<->' : '->';
    return `${String(r.source_id)} ${arrow} ${String(r.destination_id)} - ${rel ? String(rel.label) : ''}`;
  },
  fields: {
    relationship: field.foreignKey(() => relationshipResource, { onDelete: 'cascade', required: true, relatedName: 'relationship_associations' }),
    source: field.genericForeignKey({ allowed: relatable, required: true }),
    destination: field.genericForeignKey({ allowed: relatable, required: true }),
  },
  uniqueTogether: [{ fields: ['relationship', 'source', 'destination'], message: 'Relationship association with this Relationship, Source type, Source id, Destination type and Destination id already exists.', columns: ['relationship_id', 'source_type', 'source_id', 'destination_type', 'destination_id'] }],
  filters: {
    /** Associations of a symmetric relationship with these objects on either side. */
    peer_id: {
      async compile(values, _l, h) {
        const ids = values.map((v) => (isUuid(v) ? parseUuid(v) : h.invalid(`“${String(v)}” is not a valid UUID.`)));
        const rels = await h.rows(relationshipResource, 'pr');
        const symmetric = rels.select('id', inList(ident('pr', 'type'), ['symmetric-one-to-one', 'symmetric-many-to-many']));
        return sql`(${h.col('relationship_id')} IN ${symmetric} AND (${inList(h.col('source_id'), ids)} OR ${inList(h.col('destination_id'), ids)}))`;
      },
    },
  },
  features: [],
  validateBatch: (states, w) => validateAssociations(states, w),
});
