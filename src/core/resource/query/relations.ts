import type { Dialect } from '../../../database/dialect';
import { and, ident, or, raw, Sql, sql } from '../../../database/sql';
import { objectType, ResourceDefinition } from '../definition';
import type { ContentTypesField, ManyToManyField } from '../fields';
import type { RelatedSet } from '../registry';
import { escapeLike, nextAlias } from './lookups';
import type { Rows } from './rows';

/** Conditions over a model's relations to others: who points here, many-to-many links, content-type links. */
/** Objects of `owner` that some of the related set's `rows` point at (those matching `cond`, if given). */
export function relatedExists(_owner: ResourceDefinition, rel: RelatedSet, alias: string, rows: Rows, cond: Sql | null): Sql {
  const f = rel.field;
  const a = rows.alias;
  if (f.kind === 'fk') {
    return sql`EXISTS (SELECT 1 ${rows.from(sql`${ident(a, f.column)} = ${ident(alias, 'id')}`, cond)})`;
  }
  const th = nextAlias();
  return sql`EXISTS (SELECT 1 FROM ${ident(f.through.table)} ${ident(th)} ${rows.join(sql`${ident(a, 'id')} = ${ident(th, f.through.source)}`)} WHERE ${and([sql`${ident(th, f.through.target)} = ${ident(alias, 'id')}`, cond])})`;
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