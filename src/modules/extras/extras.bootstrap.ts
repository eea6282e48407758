import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { newId } from '../../core/ids';
import { Db, Executor } from '../../database/db';
import { ident, inList, join, sql } from '../../database/sql';
import { objectType, ResourceDefinition } from '../../core/resource/definition';
import { ResourceRegistry } from '../../core/resource/registry';
import { markSeeded, unseeded } from '../../core/resource/seed';
import { unscoped } from '../../core/resource/query/rows';
import { roleResource } from './resources/role.resource';
import { statusResource } from './resources/status.resource';

export const DEFAULT_STATUSES: [name: string, color: string][] = [
  ['Active', '4caf50'],
  ['Available', '4caf50'],
  ['Decommissioning', 'ffc107'],
  ['Deprecated', 'f44336'],
  ['Planned', '00bcd4'],
  ['Reserved', '00bcd4'],
  ['Retired', 'f44336'],
  ['Staged', '2196f3'],
];

/** Statuses that only some models take by default (the reference's colours), created with the first model that names them. */
export const OTHER_STATUSES: [name: string, color: string][] = [
  ['Connected', '4caf50'],
  ['Failed', 'f44336'],
  ['Inventory', '9e9e9e'],
  ['Maintenance', '9e9e9e'],
  ['Offline', 'ffc107'],
  // Circuits.
  ['Provisioning', '2196f3'],
  ['Deprovisioning', 'ffc107'],
  ['Decommissioned', '9e9e9e'],
  // Software versions and image files, redundancy groups.
  ['Extended Support', '00bcd4'],
  ['End-of-Life', 'f44336'],
  ['Staging', '2196f3'],
  // Contact associations.
  ['Primary', '2196f3'],
  ['Secondary', 'ffeb3b'],
];

/** Roles that some models take by default (the reference's migration 0062 makes the IP address roles, colours from their CSS classes). */
export const KNOWN_ROLES: [name: string, color: string][] = [
  ['Loopback', '9e9e9e'],
  ['Secondary', '2196f3'],
  ['Anycast', 'ffc107'],
  ['VIP', '4caf50'],
  ['VRRP', '4caf50'],
  ['HSRP', '4caf50'],
  ['GLBP', '4caf50'],
  ['CARP', '4caf50'],
  // Contact associations (the reference's ROLE_COLOR_MAP).
  ['Administrative', '2196f3'],
  ['Billing', '4caf50'],
  ['Support', 'ffeb3b'],
  ['On Site', '111111'],
];

/** The default statuses a model takes: those its status field names, or else every one of DEFAULT_STATUSES. */
export function defaultStatusesOf(def: ResourceDefinition): readonly string[] {
  const f = def.fields.status;
  return (f?.kind === 'fk' && f.seedNames) || DEFAULT_STATUSES.map(([n]) => n);
}

/** The default roles a model takes: those its role field names (none unless it names some). */
export function defaultRolesOf(def: ResourceDefinition): readonly string[] {
  const f = def.fields.role;
  return (f?.kind === 'fk' && f.seedNames) || [];
}

/** What one kind of named, coloured object enabled per content type (statuses, roles) seeds. */
interface SeedKind {
  kind: 'status' | 'role';
  model: ResourceDefinition;
  links: string;
  /** Objects made on the first start whether or not a model names them. */
  always: [name: string, color: string][];
  /** Objects made only when a model names them. */
  named: [name: string, color: string][];
  /** The model's defaults and the feature that gives it the field. */
  defaultsOf: (d: ResourceDefinition) => readonly string[];
  feature: string;
}

const STATUS_SEED: SeedKind = { kind: 'status', model: statusResource, links: 'extras_status_content_types', always: DEFAULT_STATUSES, named: OTHER_STATUSES, defaultsOf: defaultStatusesOf, feature: 'statuses' };
const ROLE_SEED: SeedKind = { kind: 'role', model: roleResource, links: 'extras_role_content_types', always: [], named: KNOWN_ROLES, defaultsOf: defaultRolesOf, feature: 'roles' };

/**
 * Creates the default statuses and roles on the first start and enables each for every model
 * that takes it, including models added by later upgrades; each object and each pairing is made
 * once only (an administrator's later removal sticks).
 */
@Injectable()
export class ExtrasBootstrap implements OnApplicationBootstrap {
  constructor(
    private readonly db: Db,
    private readonly registry: ResourceRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Instances starting together race for the same names: the loser runs again and finds them.
    await this.db.retryingTransaction(async (tx) => {
      for (const k of [STATUS_SEED, ROLE_SEED]) await this.seed(tx, k);
    });
  }

  private async seed(tx: Executor, k: SeedKind): Promise<void> {
    const models = this.registry.all().filter((d) => d.features.includes(k.feature));
    const pairs = models.flatMap((d) => k.defaultsOf(d).map((name) => [name, objectType(d)] as const));
    const named = new Set(pairs.map(([n]) => n));
    const known = [...k.always, ...k.named.filter(([n]) => named.has(n))];
    if (!known.length) return;
    const wanted = [...known.map(([name]) => `${k.kind}:${name}`), ...pairs.map(([name, t]) => `${k.kind}:${name}:${t}`)];
    const todo = await unseeded(tx, wanted);
    if (!todo.size) return;
    const now = new Date();
    const fresh = known.filter(([name]) => todo.has(`${k.kind}:${name}`));
    if (fresh.length) {
      const existing = await tx.query<{ name: string }>(sql`SELECT ${ident('name')} FROM ${unscoped(k.model).table} WHERE ${inList(ident('name'), fresh.map(([n]) => n))}`);
      const have = new Set(existing.map((r) => r.name));
      const rows = fresh.filter(([n]) => !have.has(n));
      if (rows.length) {
        await tx.execute(
          sql`INSERT INTO ${unscoped(k.model).table} (${join(['id', 'name', 'color', 'description', 'created', 'last_updated', '_custom_field_data'].map((c) => ident(c)))}) VALUES ${join(
            rows.map(([name, color]) => sql`(${newId()}, ${name}, ${color}, ${''}, ${now}, ${now}, ${'{}'})`),
          )}`,
        );
      }
    }
    const objects = await tx.query<{ id: string; name: string }>(sql`SELECT ${ident('id')}, ${ident('name')} FROM ${unscoped(k.model).table} WHERE ${inList(ident('name'), known.map(([n]) => n))}`);
    const ids = new Map(objects.map((r) => [r.name, String(r.id)]));
    const links = pairs.filter(([name, t]) => ids.has(name) && todo.has(`${k.kind}:${name}:${t}`)).map(([name, t]) => [ids.get(name)!, t]);
    if (links.length) {
      const fk = `${k.kind}_id`;
      const present = await tx.query<{ owner: string; content_type: string }>(
        sql`SELECT ${ident(fk)} AS ${ident('owner')}, ${ident('content_type')} FROM ${ident(k.links)} WHERE ${inList(ident(fk), objects.map((s) => s.id))}`,
      );
      const have = new Set(present.map((p) => `${p.owner}|${p.content_type}`));
      const add = links.filter(([id, t]) => !have.has(`${id}|${t}`));
      if (add.length) {
        await tx.execute(sql`INSERT INTO ${ident(k.links)} (${ident(fk)}, ${ident('content_type')}) VALUES ${join(add.map(([id, t]) => sql`(${id}, ${t})`))}`);
      }
    }
    await markSeeded(tx, [...todo]);
  }
}
