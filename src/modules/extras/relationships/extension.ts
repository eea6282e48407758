import { inList, or, sql, Sql, ident } from '../../../database/sql';
import { objectType } from '../../../core/resource/definition';
import { ModelExtension, UnknownFilterError } from '../../../core/resource/extension';
import { nextAlias } from '../../../core/resource/query/lookups';
import { unscoped } from '../../../core/resource/query/rows';
import { ASSOCIATION_TYPE, OPPOSITE, relationshipsOf, Side, sidesOf, typeOfSide } from './definitions';
import { Loaded, load } from './read';
import { afterSave, KEY, prepare } from './write';

/** `cr_<key>__<side>`: objects associated through a relationship with the given objects (on their `<side>`). */
async function compileFilter(h: Parameters<NonNullable<ModelExtension['filter']>['compile']>[0], key: string, values: unknown[]): Promise<Sql | null> {
  const m = /^cr_(.+)__(source|destination|peer)$/.exec(key);
  if (!m) throw new UnknownFilterError(key);
  const type = objectType(h.def);
  const rels = await relationshipsOf(h.ctx, h.exec, h.def);
  const other = m[2] as Side;
  const side = OPPOSITE[other];
  const r = rels.find((q) => q.key === m[1] && sidesOf(q, type).includes(side));
  const hidden = r && (side === 'destination' ? r.destinationHidden : r.sourceHidden);
  if (!r || hidden) throw new UnknownFilterError(key);
  if (h.mode === 'query' && !values.length) return null;
  const target = h.ctx.registry.get(typeOfSide(r, other));
  const assoc = h.ctx.registry.get(ASSOCIATION_TYPE);
  if (!target || !assoc) throw new UnknownFilterError(key);
  // The objects named: among those the requester may view (a hidden one is "not one of the choices").
  const ids = await h.resolveIds(target, values);
  if (!ids.length) return sql`1 = 0`;
  const a = nextAlias();
  const col = (c: string) => ident(a, c);
  const me = ident(h.alias, 'id');
  // Associations are the objects' bookkeeping: the scope that matters is the peers', applied above.
  const exists = (mine: 'source' | 'destination', theirs: 'source' | 'destination') =>
    sql`EXISTS (SELECT 1 ${unscoped(assoc, a).from(
      sql`${col('relationship_id')} = ${r.id}`,
      sql`${col(`${mine}_type`)} = ${type}`,
      sql`${col(`${mine}_id`)} = ${me}`,
      inList(col(`${theirs}_id`), ids),
    )})`;
  if (side === 'source') return exists('source', 'destination');
  if (side === 'destination') return exists('destination', 'source');
  return or([exists('source', 'destination'), exists('destination', 'source')]);
}

const sideSchema = {
  type: 'object',
  properties: {
    label: { type: 'string', readOnly: true },
    object_type: { type: 'string', readOnly: true, example: 'dcim.location' },
    objects: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'string', format: 'uuid' }, object_type: { type: 'string', readOnly: true }, url: { type: 'string', format: 'uri', readOnly: true } }, additionalProperties: true },
    },
  },
};

/**
 * Relationships on every model: `include=relationships` (and every write response) shows, per
 * relationship that applies to the object, its other side's objects the requester may view;
 * `relationships` on POST/PUT/PATCH replaces the sides it names (an omitted key is unchanged, an
 * empty list clears), in the object's write transaction; `cr_<key>__<side>` filters; CSV columns
 * `cr_<key>__<side>` of peer ids, read back on import. Associations go with their objects through
 * the association model's generic keys (write/delete.ts).
 */
export const relationshipsExtension: ModelExtension = {
  represent: {
    keys: {
      relationships: {
        schema: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['id', 'url', 'label', 'type'],
            properties: {
              id: { type: 'string', format: 'uuid', readOnly: true },
              url: { type: 'string', format: 'uri', readOnly: true },
              name: { type: 'string', readOnly: true },
              label: { type: 'string', readOnly: true },
              type: { type: 'string', readOnly: true, example: 'one-to-many' },
              source: sideSchema,
              destination: sideSchema,
              peer: sideSchema,
            },
          },
        },
        type: 'json',
        label: 'Relationships',
        writable: true,
      },
    },
    include: KEY,
    load,
    write(out, row, _url, loaded) {
      out.relationships = (loaded as Loaded | null)?.get(String(row.id)) ?? {};
    },
  },
  filter: { prefix: 'cr_', compile: compileFilter },
  write: { key: KEY, prepare, afterSave },
  csv: {
    async columns({ ctx, exec, def }) {
      const type = objectType(def);
      const out = [];
      for (const r of await relationshipsOf(ctx, exec, def)) {
        for (const side of sidesOf(r, type)) out.push({ header: `cr_${r.key}__${OPPOSITE[side]}`, data: { key: r.key, other: OPPOSITE[side] } });
      }
      return out;
    },
    cell(column, rep) {
      const { key, other } = column.data as { key: string; other: Side };
      const block = (rep.relationships as Record<string, Record<string, { objects: { id: string }[] }>> | undefined)?.[key]?.[other];
      return (block?.objects ?? []).map((o) => o.id).join(',');
    },
    async read(header, raw, input, { ctx, exec, def }) {
      const m = /^cr_(.+)__(source|destination|peer)$/.exec(header);
      if (!m) return false;
      const type = objectType(def);
      const r = (await relationshipsOf(ctx, exec, def)).find((q) => q.key === m[1] && sidesOf(q, type).map((s) => OPPOSITE[s]).includes(m[2] as Side));
      if (!r) return false;
      const rels = (input.relationships ??= Object.create(null)) as Record<string, Record<string, unknown>>;
      (rels[r.key] ??= Object.create(null))[m[2]] = { objects: raw.split(',').map((s) => s.trim()).filter(Boolean) };
      return true;
    },
  },
};
