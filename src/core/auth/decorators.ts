import { SetMetadata } from '@nestjs/common';
import type { Action } from '../context';
import type { ResourceDefinition } from '../resource/definition';

export const ROUTE_ACCESS = 'nk:access';

/**
 * How a route is protected:
 * - public: anybody (login page, docs assets);
 * - authenticated: any logged-in user (API root, status, OPTIONS);
 * - resource: an action on a model, checked against object permissions;
 * - permission: a named permission (`app.action_model`).
 */
export type RouteAccess =
  | { kind: 'public' }
  | { kind: 'authenticated'; reads?: boolean }
  | { kind: 'resource'; def: ResourceDefinition; action: Action | 'options' | MethodActions }
  | { kind: 'permission'; permission: string; basic?: boolean };

/**
 * The action of each method a route answers (one route for a path, the method chosen inside):
 * a method without one is answered as if the path had no route for it (404).
 */
export type MethodActions = Readonly<Partial<Record<string, Action | 'options'>>>;

/** The action a request asks for on a resource route, undefined for a method the route does not answer. */
export const actionOf = (access: { action: Action | 'options' | MethodActions }, method: string): Action | 'options' | undefined =>
  typeof access.action === 'string' ? access.action : access.action[method];

export const Public = () => SetMetadata(ROUTE_ACCESS, { kind: 'public' } satisfies RouteAccess);
export const Authenticated = () => SetMetadata(ROUTE_ACCESS, { kind: 'authenticated' } satisfies RouteAccess);
/** Any logged-in user, on a route that only reads whatever its method (GraphQL's POST): a token that may not write may use it. */
export const AuthenticatedReads = () => SetMetadata(ROUTE_ACCESS, { kind: 'authenticated', reads: true } satisfies RouteAccess);
export const ResourceRoute = (def: ResourceDefinition, action: Action | 'options' | MethodActions) =>
  SetMetadata(ROUTE_ACCESS, { kind: 'resource', def, action } satisfies RouteAccess);
export const RequirePermission = (permission: string) => SetMetadata(ROUTE_ACCESS, { kind: 'permission', permission } satisfies RouteAccess);
