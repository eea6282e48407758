import { field } from '../../../core/resource/fields';

/**
 * The owner of a config context or schema (a Git repository that synchronised it): netkeel has
 * no Git repositories, so every object is un-owned and these read as null, as the reference
 * shows objects made through the API.
 */
export const ownerFields = () => ({
  owner_content_type: field.string({ maxLength: 100, nullable: true, readOnly: true, label: 'Owner content type' }),
  owner: field.computed([], { type: 'object', nullable: true, readOnly: true }, () => null, { filter: false, sortable: false }),
});

export const ownerObjectId = () => field.uuid({ nullable: true, readOnly: true, label: 'Owner object id' });

/** A config context's or a device's data must be a JSON object (the reference's message). */
export const OBJECT_FORM = 'JSON data must be in object form. Example: {"foo": 123}';

export const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
