import { Inject, Injectable } from '@nestjs/common';
import { SETTINGS } from '../../config/settings.module';
import type { Settings } from '../../config/settings';
import type { Action, PermissionResolver, Principal } from '../context';
import { ResourceRegistry } from '../resource/registry';
import type { Constraint } from '../resource/fields';
import { PERMISSION_STORE, PermissionStore, StoredPermission } from './auth.types';

const loaded = new WeakMap<Principal, Promise<readonly StoredPermission[]>>();

/**
 * Object permissions: superusers may do everything; others need an enabled permission for the
 * action on the model, through themselves or a group; constraint sets OR together, and `$user`
 * stands for the requester's id. EXEMPT_VIEW_PERMISSIONS opens reads of listed models to all.
 */
@Injectable()
export class PermissionService implements PermissionResolver {
  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(PERMISSION_STORE) private readonly store: PermissionStore,
    private readonly registry: ResourceRegistry,
  ) {}

  isExempt(objectType: string): boolean {
    const def = this.registry.get(objectType);
    if (def?.neverExempt) return false;
    const list = this.settings.EXEMPT_VIEW_PERMISSIONS;
    return list.includes('*') || list.includes(objectType);
  }

  async constraints(principal: Principal, objectType: string, action: Action): Promise<Constraint[] | null> {
    const user = principal.user;
    if (user?.is_active && user.is_superuser) return null;
    if (action === 'view' && this.isExempt(objectType)) return null;
    if (!user?.is_active) return [];
    let perms = loaded.get(principal);
    if (!perms) {
      perms = this.store.forUser(user.id);
      loaded.set(principal, perms);
    }
    const matching = (await perms).filter((p) => p.enabled && p.objectTypes.includes(objectType) && p.actions.includes(action));
    if (!matching.length) return [];
    const sets: Constraint[] = [];
    for (const p of matching) {
      const list = p.constraints === null ? [{}] : Array.isArray(p.constraints) ? p.constraints : [p.constraints];
      if (!list.length) return null;
      for (const c of list) {
        if (!c || !Object.keys(c).length) return null;
        sets.push(substituteUser(c, user.id) as Constraint);
      }
    }
    return sets;
  }

  /** Named permission check (`app.action_model`), for special endpoints. */
  async has(principal: Principal, permission: string): Promise<boolean> {
    const m = /^(\w+)\.(\w+?)_(\w+)$/.exec(permission);
    if (!m) return false;
    const c = await this.constraints(principal, `${m[1]}.${m[3]}`, m[2] as Action);
    return c === null || c.length > 0;
  }
}

function substituteUser(v: unknown, userId: string): unknown {
  if (v === '$user') return userId;
  if (Array.isArray(v)) return v.map((x) => substituteUser(x, userId));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substituteUser(x, userId)]));
  return v;
}
