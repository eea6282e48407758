import type { AuthUser } from '../context';
import type { Constraint } from '../resource/fields';

export interface TokenInfo {
  id: string;
  expires: Date | null;
  writeEnabled: boolean;
}

/** Where users and credentials live (the users app implements it). */
export interface CredentialStore {
  /** The token (by its key) and its user, or null. */
  byTokenKey(key: string): Promise<{ user: AuthUser; token: TokenInfo } | null>;
  /** The user for a username and password, or null (constant time either way). */
  byPassword(username: string, password: string): Promise<AuthUser | null>;
  /** Browser sessions, stored by the hash of their id. */
  createSession(userId: string, idHash: string, csrf: string, expires: Date): Promise<void>;
  bySession(idHash: string): Promise<{ user: AuthUser; csrf: string } | null>;
  deleteSession(idHash: string): Promise<void>;
}

export interface StoredPermission {
  readonly enabled: boolean;
  readonly objectTypes: readonly string[];
  readonly actions: readonly string[];
  readonly constraints: Constraint | Constraint[] | null;
}

/** Object permissions granted to a user directly or through groups (the users app implements it). */
export interface PermissionStore {
  forUser(userId: string): Promise<readonly StoredPermission[]>;
}

export const CREDENTIAL_STORE = Symbol('CREDENTIAL_STORE');
export const PERMISSION_STORE = Symbol('PERMISSION_STORE');
