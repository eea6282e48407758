import { CREDENTIAL_STORE, PERMISSION_STORE } from '../../core/auth/auth.types';
import { defineApp } from '../../core/resource/app';
import { column, defineTable } from '../../database/schema/schema';
import { UsersCredentialStore } from './credential.store';
import { groupResource } from './resources/group.resource';
import { objectPermissionResource } from './resources/object-permission.resource';
import { tokenResource } from './resources/token.resource';
import { userResource } from './resources/user.resource';
import { UsersBootstrap } from './users.bootstrap';
import { UserConfigController } from './config.controller';

/** Browser sessions: the hash of the cookie's id, the user, the CSRF token, when it ends. */
export const sessionTable = defineTable({
  name: 'users_session',
  columns: { id_hash: column.string(64), user_id: column.uuid(), csrf: column.string(64), expires: column.datetime(), created: column.datetime() },
  primaryKey: ['id_hash'],
  indexes: [['user_id']],
  foreignKeys: { user_id: ['users_user', 'cascade'] },
});

/** A fingerprint of the server secret that the token hashes are keyed with (users.bootstrap). */
export const secretCheckTable = defineTable({
  name: 'users_secret_check',
  columns: { name: column.string(50), fingerprint: column.string(64) },
  primaryKey: ['name'],
});

export const usersApp = defineApp({
  label: 'users',
  resources: [userResource, groupResource, objectPermissionResource, tokenResource],
  tables: [sessionTable, secretCheckTable],
  controllers: [UserConfigController],
  rootLinks: ['config'],
  providers: [
    UsersCredentialStore,
    { provide: CREDENTIAL_STORE, useExisting: UsersCredentialStore },
    { provide: PERMISSION_STORE, useExisting: UsersCredentialStore },
    UsersBootstrap,
  ],
  exports: [CREDENTIAL_STORE, PERMISSION_STORE],
  global: true,
});
