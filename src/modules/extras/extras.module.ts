import type { Type } from '@nestjs/common';
import type { ResourceDefinition } from '../../core/resource/definition';
import type { ModelExtension } from '../../core/resource/extension';
import { defineApp } from '../../core/resource/app';
import { column, defineTable, TableSchema } from '../../database/schema/schema';
import { CONTENT_TYPE_LENGTH } from '../../core/resource/storage';
import { ExtrasBootstrap } from './extras.bootstrap';
import { ExtrasCustomFieldSource } from './custom-fields/source';
import { ExtrasComputedFieldSource } from './computed-fields/source';
import { computedFieldResource } from './resources/computed-field.resource';
import { ExtrasRelationshipSource } from './relationships/source';
import { ConfigContextCatalogueSource } from './config-contexts/catalogue';
import { extrasExtensions } from './extensions';
import { NotesController } from './notes.controller';
import { ContentTypeSeeder, contentTypeTable } from './content-types/content-types';
import { ContentTypesController } from './content-types/content-types.controller';
import { noteResource } from './resources/note.resource';
import { objectChangeResource } from './resources/object-change.resource';
import { configContextResource } from './resources/config-context.resource';
import { configContextSchemaResource } from './resources/config-context-schema.resource';
import { customFieldChoiceResource, customFieldResource } from './resources/custom-field.resource';
import { roleResource } from './resources/role.resource';
import { statusResource } from './resources/status.resource';
import { tagResource } from './resources/tag.resource';
import { webhookResource } from './resources/webhook.resource';
import { DeliverWebhookJob } from './webhooks/delivery.job';
import { WebhookDispatcher } from './webhooks/dispatcher';
import { ChangeEventPublisher } from './change-log/events';
import { secretResource, secretsGroupAssociationResource, secretsGroupResource } from './resources/secret.resource';
import { externalIntegrationResource } from './resources/external-integration.resource';
import { SecretCheckController } from './secrets/check.controller';
import { relationshipResource } from './resources/relationship.resource';
import { relationshipAssociationResource } from './resources/relationship-association.resource';
import { jobControllers, jobProviders, jobResources } from './jobs';
import { JobQueue } from './jobs/job-queue';
import { groupsControllers, groupsExtensions, groupsProviders, groupsResources } from './groups';
import { contactsControllers, contactsExtensions, contactsProviders, contactsResources } from './contacts';
import { graphqlControllers, graphqlProviders, graphqlResources } from './graphql';
import { filesControllers, filesProviders, filesResources } from './files';
import { attachmentsControllers, attachmentsProviders, attachmentsResources, attachmentsTables } from './attachments';
import { viewsControllers, viewsExtensions, viewsProviders, viewsResources } from './views';

/** The extras topics with folders of their own (each folder's index): their models, routes, services and extensions. */
const topics: { resources?: ResourceDefinition[]; controllers?: Type[]; providers?: Type[]; extensions?: ModelExtension[]; tables?: TableSchema[] }[] = [
  { resources: groupsResources, controllers: groupsControllers, providers: groupsProviders, extensions: groupsExtensions },
  { resources: contactsResources, controllers: contactsControllers, providers: contactsProviders, extensions: contactsExtensions },
  { resources: graphqlResources, controllers: graphqlControllers, providers: graphqlProviders },
  { resources: filesResources, controllers: filesControllers, providers: filesProviders },
  { controllers: viewsControllers, extensions: viewsExtensions, providers: viewsProviders, resources: viewsResources },
  { resources: attachmentsResources, controllers: attachmentsControllers, providers: attachmentsProviders, tables: attachmentsTables },
];

/** The tags of every model (Nautobot's TaggedItem): one table, told apart by content type. */
export const taggedItemTable = defineTable({
  name: 'extras_taggeditem',
  columns: { content_type: column.string(CONTENT_TYPE_LENGTH), object_id: column.uuid(), tag_id: column.uuid() },
  primaryKey: ['content_type', 'object_id', 'tag_id'],
  indexes: [['object_id'], ['tag_id', 'content_type']],
  foreignKeys: { tag_id: ['extras_tag', 'cascade'] },
  // Read by every detail's tags: kept with it (serialize/kept-values.ts).
  watched: true,
});

export const extrasApp = defineApp({
  label: 'extras',
  resources: [
    statusResource,
    tagResource,
    roleResource,
    customFieldResource,
    customFieldChoiceResource,
    computedFieldResource,
    noteResource,
    configContextSchemaResource,
    configContextResource,
    secretResource,
    secretsGroupResource,
    secretsGroupAssociationResource,
    externalIntegrationResource,
    relationshipResource,
    relationshipAssociationResource,
    ...jobResources,
    objectChangeResource,
    webhookResource,
    ...topics.flatMap((t) => t.resources ?? []),
  ],
  tables: [taggedItemTable, contentTypeTable, ...topics.flatMap((t) => t.tables ?? [])],
  rootLinks: ['content-types'],
  extensions: [...extrasExtensions, ...topics.flatMap((t) => t.extensions ?? [])],
  controllers: [ContentTypesController, NotesController, SecretCheckController, ...jobControllers, ...topics.flatMap((t) => t.controllers ?? [])],
  providers: [ExtrasBootstrap, ExtrasCustomFieldSource, ExtrasComputedFieldSource, ContentTypeSeeder, ExtrasRelationshipSource, ConfigContextCatalogueSource, ...jobProviders, DeliverWebhookJob, WebhookDispatcher, ChangeEventPublisher, ...topics.flatMap((t) => t.providers ?? [])],
  exports: [JobQueue],
});
