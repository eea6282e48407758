import type { Executor } from '../../../database/db';
import { ident, inList, or, raw, sql } from '../../../database/sql';
import type { ResourceDefinition } from '../definition';
import { FilterMode, naturalFilterField, nextAlias } from './lookups';
import { isUuid, parseUuid, ValueError } from './values';
import { Rows, unscoped } from './rows';

/**
 * Filter values that name objects of a model (UUIDs or names) -> their ids: in a query among the
 * objects the requester may view, a value naming none being a 400; in a constraint among all
 * objects; in a reference among the visible ones, a value naming none matching nothing.
 */
export class IdResolver {
  constructor(
    private readonly exec: Executor,
    private readonly visible: (def: ResourceDefinition, alias: string) => Promise<Rows>,
  ) {}

  /** UUIDs or natural names -> ids of visible objects; a value that matches nothing is a 400. */
  async resolveIds(target: ResourceDefinition, values: unknown[], key: string): Promise<string[]> {
    const uuids = values.filter(isUuid).map((v) => parseUuid(v));
    const names = values.filter((v) => !isUuid(v)).map(String);
    const nameField = naturalFilterField(target);
    if (names.length && !nameField) throw new ValueError(`Select a valid choice. ${names[0]} is not one of the available choices.`);
    const t = nextAlias();
    const visible = await this.visible(target, t);
    const nameCol = nameField ? ident(t, nameField) : raw('NULL');
    const rows = await this.exec.query<{ id: string; n: string | null }>(
      sql`SELECT ${ident(t, 'id')} AS ${ident('id')}, ${nameCol} AS ${ident('n')} ${visible.from(
        or([uuids.length ? inList(ident(t, 'id'), uuids) : null, names.length && nameField ? inList(ident(t, nameField), names) : null]),
      )}`,
    );
    const foundIds = new Set(rows.map((r) => String(r.id)));
    const foundNames = new Set(rows.map((r) => r.n));
    const missing = [...uuids.filter((u) => !foundIds.has(u)), ...names.filter((n) => !foundNames.has(n))];
    if (missing.length) throw new ValueError(`Select a valid choice. ${missing[0]} is not one of the available choices.`);
    void key;
    return [...foundIds];
  }
  /** Typed values -> ids; a value naming nothing matches nothing. References see only visible objects. */
  async constraintIds(target: ResourceDefinition, values: unknown[], mode: FilterMode): Promise<string[]> {
    const uuids = values.filter(isUuid).map((v) => parseUuid(v));
    const names = values.filter((v) => !isUuid(v)).map(String);
    const nameField = naturalFilterField(target);
    if (mode === 'reference') {
      if (!uuids.length && !(names.length && nameField)) return [];
      const t = nextAlias();
      const visible = await this.visible(target, t);
      const rows = await this.exec.query<{ id: string }>(
        sql`SELECT ${ident(t, 'id')} AS ${ident('id')} ${visible.from(or([uuids.length ? inList(ident(t, 'id'), uuids) : null, names.length && nameField ? inList(ident(t, nameField), names) : null]))}`,
      );
      return rows.map((r) => String(r.id));
    }
    if (!names.length || !nameField) return uuids;
    // A constraint names among all objects.
    const rows = await this.exec.query<{ id: string }>(sql`SELECT ${ident('id')} ${unscoped(target).from(inList(ident(nameField), names))}`);
    return [...uuids, ...rows.map((r) => String(r.id))];
  }}
