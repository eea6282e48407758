import { randomUUID } from 'node:crypto';
import type { Db, Executor } from '../database/db';
import type { Settings } from '../config/settings';
import type { ResourceRegistry } from './resource/registry';
import { listPath, type ResourceDefinition } from './resource/definition';
import { compareVersions, type Constraint } from './resource/fields';

export type Action = 'view' | 'add' | 'change' | 'delete';

export interface AuthUser {
  id: string;
  username: string;
  is_active: boolean;
  is_superuser: boolean;
  is_staff?: boolean;
  /**
   * From when the registered user status providers must be consulted for this user (null:
   * never; the stored `is_active` alone decides). Stored with the user, so the common case
   * costs no statement beyond loading the credential.
   */
  statusCheckAfter: Date | null;
}

export interface Principal {
  user: AuthUser | null;
  /** How the request authenticated. */
  via: 'token' | 'session' | 'basic' | null;
  /** Token requests: may the token write? */
  writeEnabled: boolean;
  tokenId?: string;
}

export const ANONYMOUS: Principal = { user: null, via: null, writeEnabled: false };

/**
 * Decides what a principal may do: `null` means every object, `[]` nothing, otherwise the
 * objects matching any one of the constraint sets (the filter language).
 */
export interface PermissionResolver {
  constraints(principal: Principal, objectType: string, action: Action): Promise<Constraint[] | null>;
}

/** A permission scope a read took: the rows of a model for an action (query/scope.ts). */
export interface ScopeUse {
  def: ResourceDefinition;
  action: Action;
  /** Whether the model's base scope was part of it. */
  base: boolean;
}

/** Everything one request carries through the engine. */
export class RequestContext {
  /** Per-request memo (custom field definitions, permission scopes). */
  readonly cache = new Map<string, unknown>();
  /**
   * Lists that note every permission scope the request's reads take while they are here: what a
   * statement built meanwhile depends on besides its definition and the API version
   * (serialize/page-extras.ts keeps statement parts built where every such scope was open).
   */
  readonly scopeListeners = new Set<ScopeUse[]>();
  /**
   * Where the changes this context makes come from (the change log's `change_context` and its
   * detail): `web` for a request, `orm` for the system's own work; a job sets `job`.
   */
  changeContext: { context: string; detail: string } = { context: 'web', detail: '' };

  constructor(
    readonly db: Db,
    readonly settings: Settings,
    readonly registry: ResourceRegistry,
    readonly permissions: PermissionResolver,
    readonly principal: Principal,
    readonly apiVersion: string,
    readonly baseUrl: string,
    readonly now: () => Date = () => new Date(),
    /** The id every change this request makes is recorded under (work outside a request gets its own). */
    readonly requestId: string = randomUUID(),
  ) {}

  get exec(): Executor {
    return this.db;
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  detailUrl(def: ResourceDefinition, id: string): string {
    return `${this.listUrl(def)}${id}/`;
  }

  private readonly listUrls = new Map<ResourceDefinition, string>();

  listUrl(def: ResourceDefinition): string {
    let url = this.listUrls.get(def);
    if (!url) {
      url = `${this.baseUrl}${listPath(def)}`;
      this.listUrls.set(def, url);
    }
    return url;
  }

  /** Compares API versions ("2.10" > "2.4"). */
  versionAtLeast(v: string): boolean {
    return compareVersions(this.apiVersion, v) >= 0;
  }

  /**
   * The memo's promise itself, not an async function's around it: a hit costs no promise and
   * no microtasks of its own (a few per request on a detail's path).
   */
  memo<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.cache.get(key);
    if (hit !== undefined || this.cache.has(key)) return hit as Promise<T>;
    let p: Promise<T>;
    try {
      p = Promise.resolve(load()); // the same promise for a native one
    } catch (e) {
      p = Promise.reject(e);
    }
    this.cache.set(key, p);
    return p;
  }
}

