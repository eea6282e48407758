import { dynamicGroupsExtension } from './extension';
import { dynamicGroupResource } from './group.resource';
import { DynamicGroupMembersController } from './members.controller';
import { dynamicGroupMembershipResource } from './membership.resource';
import { staticGroupAssociationResource } from './static-association.resource';

/** Dynamic groups (issue 21): groups, their memberships, static associations, `members/` and the `dynamic_groups` filter. */
export const groupsResources = [dynamicGroupResource, dynamicGroupMembershipResource, staticGroupAssociationResource];
export const groupsControllers = [DynamicGroupMembersController];
export const groupsProviders = [];
export const groupsExtensions = [dynamicGroupsExtension];
