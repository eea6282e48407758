import type { Dialect } from '../../../database/dialect';
import { and, ident, or, raw, Sql, sql } from '../../../database/sql';
import { objectType, ResourceDefinition } from '../definition';
import type { ContentTypesField, ManyToManyField } from '../fields';
import type { RelatedSet, ResourceRegistry } from '../registry';
import { escapeLike, FilterMode, nextAlias } from './lookups';
import type { Rows } from './rows';

/** `FROM <links> <alias><joins> WHERE <conds>`: the links of a many-to-many field, as a filter reads them (`joins` each with its own scope). */
export type LinkFrom = (joins: Sql, ...conds: (Sql | null | undefined)[]) => Sql;

const linkTable =
  (f: ManyToManyField | ContentTypesField, th: string): LinkFrom =>
  (joins, ...conds) =>
    sql`FROM ${ident(f.through.table)} ${ident(th)}${joins} WHERE ${and(conds)}`;

/**
 * The links of a many-to-many field on alias `th`: where they are objects of their own (a
 * through model: an address's interface assignments, a group's interface associations), in a
 * query or a reference only those the requester may view, so that a hidden link matches
 * nothing; the link table's rows otherwise (and in a permission constraint).
 */
export async function links(registry: ResourceRegistry, visible: (def: ResourceDefinition, alias: string) => Promise<Rows>, f: ManyToManyField | ContentTypesField, th: string, mode: FilterMode): Promise<LinkFrom> {
  const owner = mode === 'constraint' ? undefined : registry.modelOfTable(f.through.table);
  if (owner) {
    const rows = await visible(owner, th);
    if (rows.restricted) return (joins, ...conds) => rows.fromJoined(joins, ...conds);
  }
  return linkTable(f, th);
}

/** Conditions over a model's relations to others: who points here, many-to-many links, content-type links. */
/** Objects of `owner` that some of the related set's `rows` point at (those matching `cond`, if given). */
export async function relatedExists(_owner: ResourceDefinition, rel: RelatedSet, alias: string, rows: Rows, cond: Sql | null, links?: (th: string) => Promise<LinkFrom>): Promise<Sql> {
  const f = rel.field;
  const a = rows.alias;
  if (f.kind === 'fk') {
    return sql`EXISTS (SELECT 1 ${rows.from(sql`${ident(a, f.column)} = ${ident(alias, 'id')}`, cond)})`;
  }
  const th = nextAlias();
  // The links as the filter may read them (a through model's: those the requester may view), or the link table's.
  const from = links ? await links(th) : linkTable(f, th);
  return sql`EXISTS (SELECT 1 ${from(sql` ${rows.join(sql`${ident(a, 'id')} = ${ident(th, f.through.source)}`)}`, sql`${ident(th, f.through.target)} = ${ident(alias, 'id')}`, cond)})`;
}
export function discriminator(f: ManyToManyField, alias: string, owner: ResourceDefinition): Sql {
  const d = f.through.discriminator;
  return d ? sql` AND ${ident(alias, d)} = ${objectType(owner)}` : raw('');
}
export function contentTypesLeaf(f: ContentTypesField, alias: string, values: unknown[]): Sql {
  // Several content types: objects enabled for every given type (or any, where declared).
  return (f.filterAny ? or : and)(
    values.map((v) => {
      const th = nextAlias();
      return sql`EXISTS (SELECT 1 FROM ${ident(f.through.table)} ${ident(th)} WHERE ${ident(th, f.through.source)} = ${ident(alias, 'id')} AND ${ident(th, 'content_type')} = ${String(v)})`;
    }),
  );
}
/** Objects enabled for a content type containing the text (case-insensitive). */
export function contentTypesContains(dialect: Dialect, f: ContentTypesField, alias: string, values: unknown[]): Sql {
  const th = nextAlias();
  return sql`EXISTS (SELECT 1 FROM ${ident(f.through.table)} ${ident(th)} WHERE ${ident(th, f.through.source)} = ${ident(alias, 'id')} AND ${or(
    values.map((v) => dialect.ilike(ident(th, 'content_type'), `%${escapeLike(String(v))}%`)),
  )})`;
}