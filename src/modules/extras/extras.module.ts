import { defineApp } from '../../core/resource/app';
import { column, defineTable } from '../../database/schema/schema';
import { CONTENT_TYPE_LENGTH } from '../../core/resource/storage';
import { ExtrasBootstrap } from './extras.bootstrap';
import { ExtrasCustomFieldSource } from './custom-fields/source';
import { extrasExtensions } from './extensions';
import { NotesController } from './notes.controller';
import { noteResource } from './resources/note.resource';
import { objectChangeResource } from './resources/object-change.resource';
import { configContextResource } from './resources/config-context.resource';
import { configContextSchemaResource } from './resources/config-context-schema.resource';
import { customFieldChoiceResource, customFieldResource } from './resources/custom-field.resource';
import { roleResource } from './resources/role.resource';
import { statusResource } from './resources/status.resource';
import { tagResource } from './resources/tag.resource';

/** The tags of every model (Nautobot's TaggedItem): one table, told apart by content type. */
export const taggedItemTable = defineTable({
  name: 'extras_taggeditem',
  columns: { content_type: column.string(CONTENT_TYPE_LENGTH), object_id: column.uuid(), tag_id: column.uuid() },
  primaryKey: ['content_type', 'object_id', 'tag_id'],
  indexes: [['object_id'], ['tag_id', 'content_type']],
  foreignKeys: { tag_id: ['extras_tag', 'cascade'] },
});

export const extrasApp = defineApp({
  label: 'extras',
  resources: [statusResource, tagResource, roleResource, customFieldResource, customFieldChoiceResource, noteResource, configContextSchemaResource, configContextResource, objectChangeResource],
  tables: [taggedItemTable],
  extensions: extrasExtensions,
  controllers: [NotesController],
  providers: [ExtrasBootstrap, ExtrasCustomFieldSource],
});
