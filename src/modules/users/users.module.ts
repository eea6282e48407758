import { Global, Module } from '@nestjs/common';
import { CREDENTIAL_STORE, PERMISSION_STORE } from '../../core/auth/auth.types';
import { createResourceController } from '../../core/resource/resource-controller.factory';
import { UsersCredentialStore } from './credential.store';
import { Group } from './entities/group.entity';
import { ObjectPermission } from './entities/object-permission.entity';
import { Session } from './entities/session.entity';
import { Token } from './entities/token.entity';
import { User } from './entities/user.entity';
import { groupResource } from './resources/group.resource';
import { objectPermissionResource } from './resources/object-permission.resource';
import { tokenResource } from './resources/token.resource';
import { userResource } from './resources/user.resource';
import { UsersBootstrap } from './users.bootstrap';

export const usersResources = [userResource, groupResource, objectPermissionResource, tokenResource];
export const usersEntities = [User, Group, ObjectPermission, Token, Session];

@Global()
@Module({
  controllers: usersResources.map(createResourceController),
  providers: [
    UsersCredentialStore,
    { provide: CREDENTIAL_STORE, useExisting: UsersCredentialStore },
    { provide: PERMISSION_STORE, useExisting: UsersCredentialStore },
    UsersBootstrap,
  ],
  exports: [CREDENTIAL_STORE, PERMISSION_STORE],
})
export class UsersModule {}
