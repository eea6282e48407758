import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Db } from '../../database/db';
import { ident, inList, join, sql } from '../../database/sql';
import { objectType, ResourceDefinition } from '../../core/resource/definition';
import { ResourceRegistry } from '../../core/resource/registry';
import { markSeeded, unseeded } from '../../core/resource/seed';

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
  // Software versions and image files, redundancy groups.
  ['Extended Support', '00bcd4'],
  ['End-of-Life', 'f44336'],
  ['Staging', '2196f3'],
];

/** The default statuses a model takes: those its status field names, or else every one of DEFAULT_STATUSES. */
export function defaultStatusesOf(def: ResourceDefinition): readonly string[] {
  const f = def.fields.status;
  return (f?.kind === 'fk' && f.seedNames) || DEFAULT_STATUSES.map(([n]) => n);
}

/**
 * Creates the default statuses on the first start and enables each for every model that has
 * a status, including models added by later upgrades; each pairing is made once only.
 */
@Injectable()
export class ExtrasBootstrap implements OnApplicationBootstrap {
  constructor(
    private readonly db: Db,
    private readonly registry: ResourceRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const models = this.registry.all().filter((d) => d.features.includes('statuses'));
    const pairs = models.flatMap((d) => defaultStatusesOf(d).map((name) => [name, objectType(d)] as const));
    const named = new Set(pairs.map(([n]) => n));
    const known = [...DEFAULT_STATUSES, ...OTHER_STATUSES.filter(([n]) => named.has(n))];
    await this.db.transaction(async (tx) => {
      const wanted = [...known.map(([name]) => `status:${name}`), ...pairs.map(([name, t]) => `status:${name}:${t}`)];
      const todo = await unseeded(tx, wanted);
      if (!todo.size) return;
      const now = new Date();
      const newStatuses = known.filter(([name]) => todo.has(`status:${name}`));
      if (newStatuses.length) {
        const existing = await tx.query<{ name: string }>(sql`SELECT ${ident('name')} FROM ${ident('extras_status')} WHERE ${inList(ident('name'), newStatuses.map(([n]) => n))}`);
        const have = new Set(existing.map((r) => r.name));
        const rows = newStatuses.filter(([n]) => !have.has(n));
        if (rows.length) {
          await tx.execute(
            sql`INSERT INTO ${ident('extras_status')} (${join(['id', 'name', 'color', 'description', 'created', 'last_updated', '_custom_field_data'].map((c) => ident(c)))}) VALUES ${join(
              rows.map(([name, color]) => sql`(${randomUUID()}, ${name}, ${color}, ${''}, ${now}, ${now}, ${'{}'})`),
            )}`,
          );
        }
      }
      const statuses = await tx.query<{ id: string; name: string }>(sql`SELECT ${ident('id')}, ${ident('name')} FROM ${ident('extras_status')} WHERE ${inList(ident('name'), known.map(([n]) => n))}`);
      const ids = new Map(statuses.map((r) => [r.name, String(r.id)]));
      const links = pairs.filter(([name, t]) => ids.has(name) && todo.has(`status:${name}:${t}`)).map(([name, t]) => [ids.get(name)!, t]);
      if (links.length) {
        const present = await tx.query<{ status_id: string; content_type: string }>(
          sql`SELECT ${ident('status_id')}, ${ident('content_type')} FROM ${ident('extras_status_content_types')} WHERE ${inList(ident('status_id'), statuses.map((s) => s.id))}`,
        );
        const have = new Set(present.map((p) => `${p.status_id}|${p.content_type}`));
        const add = links.filter(([id, t]) => !have.has(`${id}|${t}`));
        if (add.length) {
          await tx.execute(sql`INSERT INTO ${ident('extras_status_content_types')} (${ident('status_id')}, ${ident('content_type')}) VALUES ${join(add.map(([id, t]) => sql`(${id}, ${t})`))}`);
        }
      }
      await markSeeded(tx, [...todo]);
    });
  }
}
