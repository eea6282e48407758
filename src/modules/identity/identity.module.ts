import { defineApp } from '../../core/resource/app';
import { column, defineTable } from '../../database/schema/schema';
import { IdentityHistoryController } from './controllers/identity-history.controller';
import { IdentityIntakeController } from './controllers/identity-intake.controller';
import { externalIdentityRoleResource } from './resources/external-identity-role.resource';
import { externalIdentityResource } from './resources/external-identity.resource';
import { identitySourceResource } from './resources/identity-source.resource';
import { userLinkResource } from './resources/user-link.resource';
import { IdentityAccessService } from './services/identity-access.service';
import { IdentityHistoryService } from './services/identity-history.service';
import { IdentityIntakeService } from './services/identity-intake.service';
import { IdentityUserStatusProvider } from './services/identity-user-status.provider';

/** Every identifier and (lower-cased) email of an identity's last message, for the filters. */
export const identityKeyTable = defineTable({
  name: 'identity_externalidentity_key',
  columns: { identity_id: column.uuid(), kind: column.string(16), value: column.string(255) },
  primaryKey: ['identity_id', 'kind', 'value'],
  indexes: [['kind', 'value']],
  foreignKeys: { identity_id: ['identity_externalidentity', 'cascade'] },
});

/**
 * External identity intake: sources push people with their roles; netkeel keeps users, their
 * activity and their source-managed groups in step with the roles' effective status.
 */
export const identityApp = defineApp({
  label: 'identity',
  resources: [identitySourceResource, externalIdentityResource, externalIdentityRoleResource, userLinkResource],
  tables: [identityKeyTable],
  controllers: [IdentityIntakeController, IdentityHistoryController],
  providers: [IdentityAccessService, IdentityHistoryService, IdentityIntakeService, IdentityUserStatusProvider],
});
