import { Module } from '@nestjs/common';
import { createResourceController } from '../../core/resource/resource-controller.factory';
import { IdentityHistoryController } from './controllers/identity-history.controller';
import { IdentityIntakeController } from './controllers/identity-intake.controller';
import { ExternalIdentityRole } from './entities/external-identity-role.entity';
import { ExternalIdentity } from './entities/external-identity.entity';
import { IdentitySource } from './entities/identity-source.entity';
import { IdentityUserLink } from './entities/identity-user-link.entity';
import { externalIdentityRoleResource } from './resources/external-identity-role.resource';
import { externalIdentityResource } from './resources/external-identity.resource';
import { identitySourceResource } from './resources/identity-source.resource';
import { userLinkResource } from './resources/user-link.resource';
import { IdentityAccessService } from './services/identity-access.service';
import { IdentityHistoryService } from './services/identity-history.service';
import { IdentityIntakeService } from './services/identity-intake.service';
import { IdentityUserStatusProvider } from './services/identity-user-status.provider';

export const identityResources = [identitySourceResource, externalIdentityResource, externalIdentityRoleResource, userLinkResource];
export const identityEntities = [IdentitySource, ExternalIdentity, ExternalIdentityRole, IdentityUserLink];

/**
 * External identity intake: sources push people with their roles; netkeel keeps users, their
 * activity and their source-managed groups in step with the roles' effective status.
 */
@Module({
  // Special controllers first: their routes are more specific than the generated ones.
  controllers: [IdentityIntakeController, IdentityHistoryController, ...identityResources.map(createResourceController)],
  providers: [IdentityAccessService, IdentityHistoryService, IdentityIntakeService, IdentityUserStatusProvider],
})
export class IdentityModule {}
