import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { CUSTOM_FIELD_TYPES } from '../resources/custom-field.resource';
import { metadataAssociable } from './associable';

/** The reference's MetadataTypeDataTypeChoices: the custom field types, and three more. */
export const METADATA_DATA_TYPES = [...CUSTOM_FIELD_TYPES, ['contact-or-team', 'Contact or Team'], ['datetime', 'Date/time'], ['float', 'Floating point number']] as const;

/** Data types whose values are one or several of the type's choices. */
export const SELECT_TYPES = ['select', 'multi-select'];

/** A kind of metadata (an owner, a data classification): its data type and the models it may be assigned to. */
export const metadataTypeResource = defineResource({
  app: 'extras',
  model: 'metadatatype',
  slug: 'metadata-types',
  verboseName: 'metadata type',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255 }),
    data_type: field.choice(METADATA_DATA_TYPES, {
      required: true,
      maxLength: 50,
      immutable: 'Type cannot be changed once created',
      help: 'The type of data allowed for any Metadata of this type.',
    }),
    content_types: field.contentTypes({ table: 'extras_metadatatype_content_types', source: 'metadatatype_id' }, metadataAssociable, {
      required: true,
      label: 'Content types',
      help: 'The object type(s) to which Metadata of this type can be applied.',
    }),
  },
  search: ['description'],
  features: ['tags', 'customFields', 'notes'],
});

/** One value a select or multi-select metadata type offers. */
export const metadataChoiceResource = defineResource({
  app: 'extras',
  model: 'metadatachoice',
  slug: 'metadata-choices',
  verboseName: 'metadata choice',
  naturalKey: ['metadata_type', 'value'],
  ordering: ['metadata_type', 'weight', 'value'],
  display: (r) => String(r.value),
  fields: {
    metadata_type: field.foreignKey(() => metadataTypeResource, {
      required: true,
      onDelete: 'cascade',
      relatedName: 'choices',
      limit: () => ({ data_type: SELECT_TYPES }),
    }),
    value: field.string({ required: true, maxLength: 255 }),
    weight: field.integer({ default: 100, minValue: 0, maxValue: 32767, help: 'Higher weights appear later in the list' }),
  },
  uniqueTogether: [{ fields: ['metadata_type', 'value'] }],
  search: ['value'],
  rules(s) {
    if (!s.create && s.existing && String(s.existing.metadata_type_id) !== String(s.values.metadata_type_id)) return { metadata_type: ['Cannot be changed once created'] };
  },
});
