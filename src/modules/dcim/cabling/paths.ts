import { newId } from '../../../core/ids';
import type { WriteContext } from '../../../core/resource/definition';
import { ValidationError } from '../../../core/resource/errors';
import type { Executor, Row } from '../../../database/db';
import { ident, inList, join, sql } from '../../../database/sql';
import { column, defineTable } from '../../../database/schema/schema';
import { append } from '../../../core/collections';
import { chunks } from '../../../core/resource/resource-writer';
import { unscoped } from '../../../core/resource/query/rows';
import { perRow } from '../../../core/resource/write/save';
import { PATH_ENDPOINTS, terminationOptions } from './terminations';

/**
 * Cable paths (Nautobot's CablePath): from each path endpoint (an interface, a console or power
 * port, an outlet, a power feed) with a cable, the chain of cables and pass-through ports to the
 * far end. A path is traced when a cable is made, changed or removed, and stored: its nodes in
 * order (`dcim_cablepath.path`) and, for "which paths pass here", one indexed row per node; the
 * origin's row keeps its far end and whether it is reachable, so reads never walk a path.
 */
export const CABLE_PATH_TABLE = defineTable({
  name: 'dcim_cablepath',
  columns: {
    id: column.uuid(),
    origin_type: column.string(100),
    origin_id: column.uuid(),
    destination_type: column.string(100, { nullable: true }),
    destination_id: column.uuid({ nullable: true }),
    path: column.json(),
    is_active: column.boolean(),
    is_split: column.boolean(),
  },
  primaryKey: ['id'],
  indexes: [{ columns: ['origin_type', 'origin_id'], unique: true }],
});

export const CABLE_PATH_NODE_TABLE = defineTable({
  name: 'dcim_cablepath_node',
  columns: { path_id: column.uuid(), node_type: column.string(100), node_id: column.uuid() },
  primaryKey: ['path_id', 'node_type', 'node_id'],
  indexes: [['node_type', 'node_id']],
  foreignKeys: { path_id: ['dcim_cablepath', 'cascade'] },
});

export interface PathNode {
  type: string;
  id: string;
}

const FRONT = 'dcim.frontport';
const REAR = 'dcim.rearport';
const CABLE = 'dcim.cable';
const nodeKey = (n: PathNode) => `${n.type}:${n.id}`;
export const parseNode = (s: string): PathNode => {
  const at = s.lastIndexOf(':');
  return { type: s.slice(0, at), id: s.slice(at + 1) };
};

interface Trace {
  origin: PathNode;
  node: PathNode;
  path: PathNode[];
  positions: number[];
  visited: Set<string>;
  active: boolean;
  split: boolean;
  destination: PathNode | null;
  done: boolean;
}

/** Rows of terminations, by type and id, one statement per type. */
async function termRows(w: WriteContext, nodes: PathNode[]): Promise<Map<string, Row>> {
  const out = new Map<string, Row>();
  const byType = new Map<string, string[]>();
  for (const n of nodes) append(byType, n.type, n.id);
  for (const [type, ids] of byType) {
    const def = w.ctx.registry.get(type);
    if (!def) continue;
    for (const chunk of chunks([...new Set(ids)])) {
      // Bookkeeping: a path runs through whatever is cabled, seen or not by the requester.
      for (const r of await w.exec.query(sql`SELECT * ${unscoped(def).from(inList(ident('id'), chunk))}`)) out.set(`${type}:${r.id}`, r);
    }
  }
  return out;
}

/** For peers whose model says where a path goes on past them (`across`): the node to continue from, or null. One call per model. */
async function acrossAll(w: WriteContext, nodes: PathNode[], rows: Map<string, Row>): Promise<Map<string, PathNode | null>> {
  const out = new Map<string, PathNode | null>();
  const byType = new Map<string, Row[]>();
  for (const n of nodes) {
    const row = rows.get(nodeKey(n));
    if (row && terminationOptions(w.ctx.registry.get(n.type)).across) append(byType, n.type, row);
  }
  for (const [type, list] of byType) {
    const far = await terminationOptions(w.ctx.registry.get(type)).across!(list, w);
    for (const r of list) {
      const f = far.get(String(r.id));
      out.set(`${type}:${r.id}`, f ? { type, id: String(f.id) } : null);
    }
  }
  return out;
}

/** The id of the status "Connected" of cables (a path over another status is not reachable). */
function connectedStatus(w: WriteContext): Promise<string | null> {
  return w.ctx.memo('dcim.cable-status-connected', async () => {
    const [row] = await w.exec.query<{ id: string }>(sql`SELECT ${ident('id')} FROM ${ident('extras_status')} WHERE ${ident('name')} = ${'Connected'}`);
    return row ? String(row.id) : null;
  });
}

/**
 * Traces the paths from many origins at once, hop by hop: each hop reads the current nodes, the
 * cables' statuses, the peers, and the rear or front ports they lead to, one statement per kind
 * for all origins (Nautobot's CablePath.from_origin, batched).
 */
async function traceAll(w: WriteContext, origins: PathNode[]): Promise<Trace[]> {
  const connected = await connectedStatus(w);
  const traces: Trace[] = origins.map((o) => ({ origin: o, node: o, path: [], positions: [], visited: new Set(), active: true, split: false, destination: null, done: false }));
  for (let hop = 0; traces.some((t) => !t.done); hop++) {
    const open = traces.filter((t) => !t.done);
    const here = await termRows(w, open.map((t) => t.node));
    const moving: { t: Trace; peer: PathNode; cable: string }[] = [];
    for (const t of open) {
      const row = here.get(nodeKey(t.node));
      if (!row?.cable_id || !row._cable_peer_type || !row._cable_peer_id) {
        t.done = true;
        continue;
      }
      if (t.visited.has(nodeKey(t.node))) throw new ValidationError({ __all__: ['a loop is detected in the path'] });
      t.visited.add(nodeKey(t.node));
      t.path.push({ type: CABLE, id: String(row.cable_id) });
      moving.push({ t, peer: { type: String(row._cable_peer_type), id: String(row._cable_peer_id) }, cable: String(row.cable_id) });
    }
    if (!moving.length) break;
    const cableIds = [...new Set(moving.map((m) => m.cable))];
    const statuses = new Map<string, string>();
    for (const chunk of chunks(cableIds)) {
      for (const r of await w.exec.query<{ id: string; status_id: string }>(sql`SELECT ${ident('id')}, ${ident('status_id')} FROM ${ident('dcim_cable')} WHERE ${inList(ident('id'), chunk)}`)) statuses.set(String(r.id), String(r.status_id));
    }
    const peers = await termRows(w, moving.map((m) => m.peer));
    // A front port leads to its rear port; a rear port to the front port at the position the path came in by.
    const rears = await termRows(w, moving.filter((m) => m.peer.type === FRONT && peers.get(nodeKey(m.peer))).map((m) => ({ type: REAR, id: String(peers.get(nodeKey(m.peer))!.rear_port_id) })));
    const beyond = await acrossAll(w, moving.map((m) => m.peer), peers);
    const wanted: { t: Trace; rear: string; position: number }[] = [];
    for (const { t, peer, cable } of moving) {
      if (statuses.get(cable) !== connected) t.active = false;
      const peerRow = peers.get(nodeKey(peer));
      if (!peerRow) {
        t.done = true;
        continue;
      }
      if (peer.type === FRONT) {
        t.path.push(peer);
        const rear = rears.get(`${REAR}:${peerRow.rear_port_id}`);
        if (!rear) {
          t.done = true;
          continue;
        }
        if (Number(rear.positions) > 1) t.positions.push(Number(peerRow.rear_port_position));
        t.node = { type: REAR, id: String(rear.id) };
        t.path.push(t.node);
      } else if (peer.type === REAR) {
        t.path.push(peer);
        let position: number | undefined = 1;
        if (Number(peerRow.positions) !== 1) position = t.positions.pop();
        if (position === undefined) {
          // No position to follow: the path splits here and stops at the rear port.
          t.split = true;
          t.done = true;
          continue;
        }
        wanted.push({ t, rear: String(peer.id), position });
      } else if (beyond.has(nodeKey(peer))) {
        // A circuit: on from its termination on the other side, or the path ends at this one.
        const far = beyond.get(nodeKey(peer));
        if (!far) {
          t.destination = peer;
          t.done = true;
          continue;
        }
        t.path.push(peer, far);
        t.node = far;
      } else {
        t.destination = peer;
        t.done = true;
      }
    }
    if (wanted.length) {
      const fronts = new Map<string, Row>();
      for (const chunk of chunks([...new Set(wanted.map((x) => x.rear))])) {
        for (const r of await w.exec.query(sql`SELECT * FROM ${ident('dcim_frontport')} WHERE ${inList(ident('rear_port_id'), chunk)}`)) fronts.set(`${r.rear_port_id}:${r.rear_port_position}`, r);
      }
      for (const { t, rear, position } of wanted) {
        const front = fronts.get(`${rear}:${position}`);
        if (!front) {
          t.done = true;
          continue;
        }
        t.node = { type: FRONT, id: String(front.id) };
        t.path.push(t.node);
      }
    }
  }
  for (const t of traces) if (!t.destination) t.active = false;
  return traces;
}

/** Origins of the stored paths that pass through any of these nodes (cables, ports). */
export async function originsThrough(exec: Executor, nodes: PathNode[]): Promise<PathNode[]> {
  const out = new Map<string, PathNode>();
  const byType = new Map<string, string[]>();
  for (const n of nodes) append(byType, n.type, n.id);
  for (const [type, ids] of byType) {
    for (const chunk of chunks([...new Set(ids)])) {
      const rows = await exec.query<{ origin_type: string; origin_id: string }>(
        sql`SELECT DISTINCT p.${ident('origin_type')} AS ${ident('origin_type')}, p.${ident('origin_id')} AS ${ident('origin_id')}
            FROM ${ident('dcim_cablepath_node')} n JOIN ${ident('dcim_cablepath')} p ON p.${ident('id')} = n.${ident('path_id')}
            WHERE n.${ident('node_type')} = ${type} AND ${inList(ident('n', 'node_id'), chunk)}`,
      );
      for (const r of rows) out.set(`${r.origin_type}:${r.origin_id}`, { type: String(r.origin_type), id: String(r.origin_id) });
    }
  }
  return [...out.values()];
}

/**
 * Traces the paths of these origins again and stores them: their old paths go, a path is kept
 * for each origin that has a cable, and each origin's row gets its far end and reachability
 * (nothing, for an origin without a cable). Origins that are not path endpoints are skipped.
 */
export async function retrace(w: WriteContext, origins: PathNode[]): Promise<void> {
  const unique = [...new Map(origins.map((o) => [nodeKey(o), o])).values()].filter((o) => w.ctx.registry.get(o.type)?.features.includes(PATH_ENDPOINTS));
  if (!unique.length) return;
  const d = w.exec.dialect;
  const byType = new Map<string, string[]>();
  for (const o of unique) append(byType, o.type, o.id);
  for (const [type, ids] of byType) {
    for (const chunk of chunks(ids)) await w.exec.execute(sql`DELETE FROM ${ident('dcim_cablepath')} WHERE ${ident('origin_type')} = ${type} AND ${inList(ident('origin_id'), chunk)}`);
  }
  const traces = (await traceAll(w, unique)).map((t) => ({ ...t, pathId: t.path.length ? newId() : null }));
  const stored = traces.filter((t) => t.pathId);
  const bool = (v: boolean) => d.toDb(v, 'boolean');
  for (const chunk of chunks(stored)) {
    await w.exec.execute(
      sql`INSERT INTO ${ident('dcim_cablepath')} (${join(['id', 'origin_type', 'origin_id', 'destination_type', 'destination_id', 'path', 'is_active', 'is_split'].map((c) => ident(c)))}) VALUES ${join(
        chunk.map((t) => sql`(${t.pathId}, ${t.origin.type}, ${t.origin.id}, ${t.destination?.type ?? null}, ${t.destination?.id ?? null}, ${d.toDb(t.path.map(nodeKey), 'json')}, ${bool(t.active)}, ${bool(t.split)})`),
      )}`,
    );
  }
  const nodeRows = stored.flatMap((t) => [...new Map(t.path.map((n) => [nodeKey(n), n])).values()].map((n) => sql`(${t.pathId}, ${n.type}, ${n.id})`));
  for (const chunk of chunks(nodeRows)) {
    await w.exec.execute(sql`INSERT INTO ${ident('dcim_cablepath_node')} (${ident('path_id')}, ${ident('node_type')}, ${ident('node_id')}) VALUES ${join(chunk)}`);
  }
  // The origins' rows, grouped by model: one UPDATE per chunk, a CASE per column.
  const tracesByType = new Map<string, typeof traces>();
  for (const t of traces) append(tracesByType, t.origin.type, t);
  for (const [type, list] of tracesByType) {
    const def = w.ctx.registry.get(type)!;
    for (const chunk of chunks(list)) {
      const set = (col: string, value: (t: (typeof list)[number]) => unknown, colType: 'uuid' | 'string' | 'boolean') => perRow(d, col, colType, chunk.map((t) => [t.origin.id, value(t)]));
      await w.exec.execute(
        sql`UPDATE ${unscoped(def).table} SET ${join([
          set('_path_id', (t) => t.pathId, 'uuid'),
          set('_path_active', (t) => (t.pathId ? t.active : null), 'boolean'),
          set('_connected_endpoint_type', (t) => t.destination?.type ?? null, 'string'),
          set('_connected_endpoint_id', (t) => t.destination?.id ?? null, 'uuid'),
        ])} WHERE ${inList(ident('id'), chunk.map((t) => t.origin.id))}`,
      );
    }
  }
}

const bool = (v: unknown) => v === true || Number(v) === 1;
const nodesOf = (row: Row): PathNode[] => ((typeof row.path === 'string' ? JSON.parse(row.path) : row.path) as string[]).map(parseNode);

/** The stored paths that pass through a node (for a pass-through port's `paths/`), in origin order. */
export async function pathsThrough(exec: Executor, node: PathNode) {
  const rows = await exec.query(
    sql`SELECT p.* FROM ${ident('dcim_cablepath')} p WHERE p.${ident('id')} IN (SELECT ${ident('path_id')} FROM ${ident('dcim_cablepath_node')} WHERE ${ident('node_type')} = ${node.type} AND ${ident('node_id')} = ${node.id})
        ORDER BY p.${ident('origin_type')}, p.${ident('origin_id')}`,
  );
  return rows.map((r) => ({
    id: String(r.id),
    origin: { type: String(r.origin_type), id: String(r.origin_id) },
    destination: r.destination_type ? { type: String(r.destination_type), id: String(r.destination_id) } : null,
    nodes: nodesOf(r),
    active: bool(r.is_active),
    split: bool(r.is_split),
  }));
}

/** A stored path's nodes in order, with its far end (for `trace/`). */
export async function storedPath(exec: Executor, pathId: string): Promise<{ nodes: PathNode[]; destination: PathNode | null } | null> {
  const [row] = await exec.query(sql`SELECT * FROM ${ident('dcim_cablepath')} WHERE ${ident('id')} = ${pathId}`);
  if (!row) return null;
  return { nodes: nodesOf(row), destination: row.destination_type ? { type: String(row.destination_type), id: String(row.destination_id) } : null };
}

