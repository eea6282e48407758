import { objectType } from '../../core/resource/definition';
import type { ModelExtension } from '../../core/resource/extension';
import { field } from '../../core/resource/fields';
import { changeLogExtension } from './change-log/extension';
import { configContextsExtension } from './config-contexts/extension';
import { computedFieldsExtension } from './computed-fields/extension';
import { customFieldsExtension } from './custom-fields/extension';
import { relationshipsExtension } from './relationships/extension';

export const TAG_TYPE = 'extras.tag';

/**
 * Tags on every model with the `tags` feature (Nautobot's TaggedItem): one link table for all
 * models, told apart by content type; a tag applies only to the models it is enabled for.
 * Filtered as `tags` or `tag` (several values: objects with all of them), written and shown
 * after the timestamps as a list, exported as the tags' names.
 */
export const tagsExtension: ModelExtension = {
  feature: 'tags',
  fields: (_def, lookup) => ({
    tags: field.manyToMany(() => lookup(TAG_TYPE)!, { table: 'extras_taggeditem', source: 'object_id', target: 'tag_id', discriminator: 'content_type' }, {
      writable: true,
      filterAll: true,
      trailing: true,
      csvNames: true,
      limit: (owner) => ({ content_types: objectType(owner) }),
    }),
  }),
  filterAliases: { tag: 'tags' },
};

/** Notes on every model with the `notes` feature: their URL (the notes themselves are `extras.note` objects). */
export const notesExtension: ModelExtension = {
  feature: 'notes',
  represent: {
    keys: { notes_url: { schema: { type: 'string', format: 'uri' }, type: 'field', label: 'Notes url', url: true } },
    write(out, _row, url) {
      out.notes_url = `${url}notes/`;
    },
  },
};

/** What the extras app adds to the models, in the order their keys are shown. */
export const extrasExtensions: ModelExtension[] = [tagsExtension, notesExtension, customFieldsExtension, computedFieldsExtension, relationshipsExtension, configContextsExtension, changeLogExtension];
