import { model, ResourceDefinition, WriteContext } from '../../../core/resource/definition';
import type { Row } from '../../../database/db';
import { field } from '../../../core/resource/fields';
import { mixin } from '../../../core/resource/mixin';
import { column } from '../../../database/schema/schema';
import { sql } from '../../../database/sql';

/** The feature of models a cable may end on (Nautobot's `cable_terminations`). */
export const CABLE_TERMINATIONS = 'cableTerminations';
/** The feature of terminations where a traced path starts and ends (Nautobot's PathEndpoint). */
export const PATH_ENDPOINTS = 'pathEndpoints';

const lastTrue = (values: unknown[]) => values[values.length - 1] === true;

/**
 * What a termination model adds to the cable rules and the path tracer, beyond the mixin's
 * fields (the reference names these cases in Cable.clean() and CablePath.from_origin()).
 */
export interface TerminationOptions {
  /** Why a cable may not end on this object (the reference's message), or nothing: a circuit termination on a provider network. */
  refuseCable?: (row: Row) => string | undefined;
  /** How the reference names the object in the cable's messages (its str()), where the row's name is not it. */
  label?: (row: Row, w: WriteContext) => Promise<string>;
  /**
   * Where a path goes on after a cable reached one of these objects, for a batch of their rows,
   * by id: the row to continue from (a circuit's termination on the other side), or null where
   * the path ends at the object. Without it, a path ends at any object that is not a port.
   */
  across?: (rows: Row[], w: WriteContext) => Promise<Map<string, Row | null>>;
}

const OPTIONS: { self: () => ResourceDefinition; options: TerminationOptions }[] = [];

/** A termination model's options (none for most). */
export const terminationOptions = (def: ResourceDefinition | undefined): TerminationOptions => (def && OPTIONS.find((o) => o.self() === def)?.options) || {};

/**
 * What a cable may end on (Nautobot's CableTermination): its `cable` and the object at the
 * cable's far end (`cable_peer_type`, `cable_peer`), both kept by the cable's hooks, never
 * written by a client; filters `cable`, `has_cable` (and `cabled`, the same).
 */
export const cableTermination = (options: TerminationOptions = {}) =>
  mixin({
    fields: (self) => {
      if (Object.keys(options).length) OPTIONS.push({ self, options });
      return {
        cable: field.foreignKey(model('dcim.cable'), { nullable: true, readOnly: true, onDelete: 'setNull', maintained: true }),
        cable_peer: field.genericForeignKey({
          readOnly: true,
          nullable: true,
          showId: false,
          rootOnly: true,
          filter: false,
          index: false,
          typeColumn: '_cable_peer_type',
          idColumn: '_cable_peer_id',
          allowed: (d) => d.features.includes(CABLE_TERMINATIONS),
        }),
      };
    },
    features: [CABLE_TERMINATIONS],
    filters: {
      has_cable: { boolean: true, compile: (values, _l, h) => (lastTrue(values) ? sql`${h.col('cable_id')} IS NOT NULL` : sql`${h.col('cable_id')} IS NULL`) },
    },
    filterAliases: { cabled: 'has_cable' },
  });

/**
 * Where a path starts and ends (Nautobot's PathEndpoint): the far end of the traced path
 * (`connected_endpoint_type`, `connected_endpoint`) and whether it is reached over connected
 * cables only (`connected_endpoint_reachable`; null without a path), stored on the row when a
 * cable is made, changed or removed (cabling/paths.ts), never walked per read; filter
 * `connected`.
 */
export const pathEndpoint = () =>
  mixin({
    fields: () => ({
      connected_endpoint: field.genericForeignKey({
        readOnly: true,
        nullable: true,
        showId: false,
        rootOnly: true,
        filter: false,
        index: false,
        typeColumn: '_connected_endpoint_type',
        idColumn: '_connected_endpoint_id',
        allowed: (d) => d.features.includes(PATH_ENDPOINTS),
      }),
      connected_endpoint_reachable: field.computed(['_path_active'], { type: 'boolean', nullable: true, readOnly: true }, (r) =>
        r._path_active === null || r._path_active === undefined ? null : r._path_active === true || Number(r._path_active) === 1,
      ),
    }),
    columns: { _path_id: column.uuid({ nullable: true }), _path_active: column.boolean({ nullable: true }) },
    features: [PATH_ENDPOINTS],
    filters: {
      connected: {
        boolean: true,
        compile: (values, _l, h) => {
          const yes = h.exec.dialect.toDb(true, 'boolean');
          return lastTrue(values) ? sql`${h.col('_path_active')} = ${yes}` : sql`(${h.col('_path_active')} IS NULL OR ${h.col('_path_active')} <> ${yes})`;
        },
      },
    },
  });
