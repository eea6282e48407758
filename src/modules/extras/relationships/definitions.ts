import type { Executor } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import type { RequestContext } from '../../../core/context';
import { objectType, ResourceDefinition } from '../../../core/resource/definition';
import { ValidationError } from '../../../core/resource/errors';
import { unscoped } from '../../../core/resource/query/rows';
import { filterCompiler } from '../../../core/resource/query/scope';
import { parseJsonObject } from '../../../core/resource/serialize/values';

export const RELATIONSHIP_TYPE = 'extras.relationship';
export const ASSOCIATION_TYPE = 'extras.relationshipassociation';

export const RELATIONSHIP_TYPES = [
  ['one-to-one', 'One to One'],
  ['symmetric-one-to-one', 'Symmetric One to One'],
  ['one-to-many', 'One to Many'],
  ['many-to-many', 'Many to Many'],
  ['symmetric-many-to-many', 'Symmetric Many to Many'],
] as const;

export const REQUIRED_ON = [
  ['', 'Neither side required'],
  ['source', 'Source objects MUST implement this relationship'],
  ['destination', 'Destination objects MUST implement this relationship'],
] as const;

export type Side = 'source' | 'destination' | 'peer';
export const OPPOSITE: Record<Side, Side> = { source: 'destination', destination: 'source', peer: 'peer' };

/** What the engine needs to know of one relationship. */
export interface RelationshipInfo {
  id: string;
  key: string;
  label: string;
  type: string;
  sourceType: string;
  destinationType: string;
  sourceLabel: string;
  destinationLabel: string;
  sourceHidden: boolean;
  destinationHidden: boolean;
  sourceFilter: Record<string, unknown> | null;
  destinationFilter: Record<string, unknown> | null;
  requiredOn: '' | 'source' | 'destination';
}

/** Models a relationship may join: every model but the relationship machinery's own. */
export const relatable = (d: ResourceDefinition) => ![RELATIONSHIP_TYPE, ASSOCIATION_TYPE].includes(objectType(d));

export const isSymmetric = (type: unknown) => type === 'symmetric-one-to-one' || type === 'symmetric-many-to-many';

/** Whether a side of a relationship may hold several objects. */
export function hasMany(type: string, side: Side): boolean {
  if (type === 'many-to-many' || type === 'symmetric-many-to-many') return true;
  if (type === 'one-to-one' || type === 'symmetric-one-to-one') return false;
  return side === 'destination';
}

const asFilter = (v: unknown): Record<string, unknown> | null => {
  if (v === null || v === undefined || v === '') return null;
  const o = parseJsonObject(v);
  return Object.keys(o).length ? o : null;
};

export function toInfo(r: Record<string, unknown>): RelationshipInfo {
  const bool = (v: unknown) => v === true || v === 1 || v === '1';
  return {
    id: String(r.id),
    key: String(r.key),
    label: String(r.label),
    type: String(r.type),
    sourceType: String(r.source_type),
    destinationType: String(r.destination_type),
    sourceLabel: String(r.source_label ?? ''),
    destinationLabel: String(r.destination_label ?? ''),
    sourceHidden: bool(r.source_hidden),
    destinationHidden: bool(r.destination_hidden),
    sourceFilter: asFilter(r.source_filter),
    destinationFilter: asFilter(r.destination_filter),
    requiredOn: (r.required_on ?? '') as RelationshipInfo['requiredOn'],
  };
}

/** Supplies every relationship (the extras app's cached source; see source.ts). */
export interface RelationshipSource {
  all(ctx: RequestContext): Promise<RelationshipInfo[]>;
}

/** The key the source is registered under with the registry (`registry.provide`). */
export const RELATIONSHIP_SOURCE = 'extras.relationship-source';

/** Every relationship, in label order: from the cached source, once per request. */
export function allRelationships(ctx: RequestContext, exec: Executor): Promise<RelationshipInfo[]> {
  return ctx.memo('relationships', async () => {
    const source = ctx.registry.service<RelationshipSource>(RELATIONSHIP_SOURCE);
    if (source) return source.all(ctx);
    const def = ctx.registry.get(RELATIONSHIP_TYPE);
    if (!def) return [];
    // Definitions, not data: every request applies every relationship, whoever may list them.
    const rows = await exec.query(sql`SELECT * ${unscoped(def).from()} ORDER BY ${ident('label')}`);
    return rows.map(toInfo);
  });
}

/** The relationships a model takes part in. */
export async function relationshipsOf(ctx: RequestContext, exec: Executor, def: ResourceDefinition): Promise<RelationshipInfo[]> {
  const type = objectType(def);
  return (await allRelationships(ctx, exec)).filter((r) => r.sourceType === type || r.destinationType === type);
}

/** The sides a model of `type` is on in a relationship (a non-symmetric one from a model to itself: both). */
export function sidesOf(r: RelationshipInfo, type: string): Side[] {
  if (isSymmetric(r.type)) return r.sourceType === type ? ['peer'] : [];
  const out: Side[] = [];
  if (r.sourceType === type) out.push('source');
  if (r.destinationType === type) out.push('destination');
  return out;
}

/** The label shown on an object of one side for the objects of the other (the reference's get_label). */
export function sideLabel(ctx: RequestContext, r: RelationshipInfo, side: Side): string {
  const s = side === 'peer' ? 'source' : side;
  const own = s === 'source' ? r.sourceLabel : r.destinationLabel;
  if (own) return own;
  const other = ctx.registry.get(s === 'source' ? r.destinationType : r.sourceType);
  if (!other) return r.label;
  const plural = s === 'source' ? ['many-to-many', 'symmetric-many-to-many', 'one-to-many'].includes(r.type) : ['many-to-many', 'symmetric-many-to-many'].includes(r.type);
  return plural ? other.verboseNamePlural : other.verboseName;
}

/** The type of the objects on a side. */
export const typeOfSide = (r: RelationshipInfo, side: Side) => (side === 'destination' ? r.destinationType : r.sourceType);

export const filterOf = (r: RelationshipInfo, side: Side) => (side === 'destination' ? r.destinationFilter : r.sourceFilter);

/** A filter object (`{"status": ["active"], "name": "x"}`) as query-string parameters. */
export function filterParams(filter: Record<string, unknown>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of Object.entries(filter)) {
    const list = Array.isArray(v) ? v : [v];
    out.set(
      k,
      list.map((x) => (x === null || x === undefined ? 'null' : typeof x === 'object' ? JSON.stringify(x) : String(x))),
    );
  }
  return out;
}

/**
 * The ids among `ids` of a model that a relationship side's filter admits, in one statement.
 * The filter is compiled as a query string would be (the same filter language); it reads all the
 * model's objects, as the reference applies it to every object, not the requester's.
 */
export async function matchingIds(ctx: RequestContext, exec: Executor, def: ResourceDefinition, filter: Record<string, unknown>, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  let cond;
  try {
    cond = await filterCompiler(ctx, exec).fromQuery(def, filterParams(filter), 'rf');
  } catch (e) {
    // A filter that stopped compiling (a value deleted since) admits nothing, never a 500.
    if (e instanceof ValidationError) return new Set();
    throw e;
  }
  // A model rule's lookup: the relationship's own restriction, over every object.
  const rows = await exec.query<{ id: string }>(sql`SELECT ${ident('rf', 'id')} AS ${ident('id')} ${unscoped(def, 'rf').from(inList(ident('rf', 'id'), ids), cond)}`);
  return new Set(rows.map((r) => String(r.id)));
}
