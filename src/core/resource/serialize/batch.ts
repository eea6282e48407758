import type { Row } from '../../../database/db';
import type { RequestContext } from '../../context';
import { DisplayHelpers, objectType, ResourceDefinition } from '../definition';
import type { ModelExtension } from '../extension';
import type { Field, ManyToManyField } from '../fields';
import type { Ancestry } from '../query/tree';
import { isPlain, type Encoder, type ValueKind } from './json-encoder';

export type Obj = Record<string, unknown>;

export interface ReadOptions {
  depth: number;
  excludeM2m?: boolean;
  /** Opt-in extras: relationships, computed_fields, config_context. */
  include?: ReadonlySet<string>;
  /** `false`: leave count fields out (a change record's data: the reference's serializer skips counts its object was not annotated with). */
  counts?: boolean;
}

/** Everything loaded for one batch of rows of one model at one level. */
export interface Batch {
  def: ResourceDefinition;
  rows: Row[];
  root: boolean;
  depth: number;
  ancestry?: Map<string, Ancestry>;
  displayRows: Map<string, Map<string, Row>>;
  /** fk field name -> id -> nested representation (only loaded when depth > 0). */
  nested: Map<string, Map<string, Obj>>;
  /**
   * fk field name -> id -> the reference shown for it: one object per related object and batch
   * (a page's 1,000 addresses name a handful of statuses and parents), never changed once made.
   */
  refs: Map<string, Map<string, Obj>>;
  /** The display helpers of the row being represented (one object per batch). */
  helpers?: DisplayHelpers & { row: Row };
  /** Slug parts of the related names and ancestors of this batch's natural slugs. */
  slugs: Map<unknown, string>;
  /** m2m field -> owner id -> list of items. */
  many: Map<string, Map<string, unknown[]>>;
  /**
   * Count field -> id -> count, when a statement of their own counted them; null otherwise: the
   * rows carry their counts (COUNT_COLUMN columns of the page's or detail's statement), read from
   * each row as it is represented.
   */
  counts: Map<string, Map<string, number>> | null;
  /** Computed fields with a batch loader: field -> id -> value. */
  loaded: Map<string, Map<string, unknown>>;
  /** What each extension loaded for this batch (custom field definitions). */
  extended: Map<ModelExtension, unknown>;
  /** The extensions that show keys on this batch's representations. */
  extensions: readonly ModelExtension[];
  /** The fields readable in the request's API version. */
  fields: readonly Field[];
  /** The fields this representation shows, in order. */
  shown: readonly Field[];
  /** Many-to-many fields shown after the timestamps (tags). */
  trailing: readonly ManyToManyField[];
  listUrl: string;
  type: string;
  /** Every key of this batch's representations, in order (set by the first one made, when there are several). */
  template?: Obj;
  /** The JSON encoder of the batch's representations (set with the template; a nested batch's writes its objects once, NestedTexts). */
  encode?: Encoder;
}

export const ref = (ctx: RequestContext, def: ResourceDefinition, id: string): Obj => ({
  id,
  object_type: objectType(def),
  url: `${ctx.listUrl(def)}${id}/`,
});

/**
 * What each key of a batch's representations holds, for its JSON encoder: the strings the
 * representer builds from ids of typed uuid columns, URLs and timestamps need no escaping (a
 * list URL carrying the request's host is checked once), and a foreign key is a reference at
 * depth 0 and a nested object (or reference) the response may show many times at depth > 0.
 */
export function valueKinds(ctx: RequestContext, typed: boolean, b: Batch): Record<string, ValueKind> {
  const urls = typed && isPlain(b.listUrl);
  const standard: Record<string, boolean> = {
    id: typed,
    object_type: isPlain(b.type),
    url: urls,
    created: true,
    last_updated: true,
  };
  const kinds: Record<string, ValueKind> = {};
  for (const e of b.extensions) for (const [key, k] of Object.entries(e.represent!.keys)) if (k.url) standard[key] = urls;
  // A model field of the same name (none today) would hold what its row holds: left to 'any'.
  for (const [key, plain] of Object.entries(standard)) if (plain && !(key in b.def.fields)) kinds[key] = 'plain';
  for (const f of b.shown) {
    if (f.kind !== 'fk') continue;
    if (b.depth > 0) kinds[f.name] = 'nested';
    else if (typed) {
      const target = f.target();
      if (isPlain(ctx.listUrl(target))) kinds[f.name] = { ref: objectType(target) };
    }
  }
  return kinds;
}
