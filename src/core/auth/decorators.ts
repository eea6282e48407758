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
  | { kind: 'resource'; def: ResourceDefinition; action: Action | 'options' }
  | { kind: 'permission'; permission: string; basic?: boolean };

export const Public = () => SetMetadata(ROUTE_ACCESS, { kind: 'public' } satisfies RouteAccess);
export const Authenticated = () => SetMetadata(ROUTE_ACCESS, { kind: 'authenticated' } satisfies RouteAccess);
/** Any logged-in user, on a route that only reads whatever its method (GraphQL's POST): a token that may not write may use it. */
export const AuthenticatedReads = () => SetMetadata(ROUTE_ACCESS, { kind: 'authenticated', reads: true } satisfies RouteAccess);
export const ResourceRoute = (def: ResourceDefinition, action: Action | 'options') =>
  SetMetadata(ROUTE_ACCESS, { kind: 'resource', def, action } satisfies RouteAccess);
export const RequirePermission = (permission: string) => SetMetadata(ROUTE_ACCESS, { kind: 'permission', permission } satisfies RouteAccess);
