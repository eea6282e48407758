import type { Dialect } from '../../../database/dialect';
import { and, ident, or, raw, Sql, sql } from '../../../database/sql';
import { objectType, ResourceDefinition } from '../definition';
import type { ContentTypesField, ManyToManyField } from '../fields';
import type { RelatedSet } from '../registry';
import { escapeLike, nextAlias } from './lookups';

/** Conditions over a model's relations to others: who points here, many-to-many links, content-type links. */
/** Objects of `owner` that some object of the related set points at (optionally matching `inner`). */
export function relatedExists(_owner: ResourceDefinition, rel: RelatedSet, alias: string, inner: { alias: string; cond: Sql } | null): Sql {
  const f = rel.field;
  const a = inner?.alias ?? nextAlias();
  const where = inner ? sql` AND ${inner.cond}` : sql``;
  if (f.kind === 'fk') {
    return sql`EXISTS (SELECT 1 FROM ${ident(rel.def.table)} ${ident(a)} WHERE ${ident(a, f.column)} = ${ident(alias, 'id')}${where})`;
  }
  const th = nextAlias();
  return sql`EXISTS (SELECT 1 FROM ${ident(f.through.table)} ${ident(th)} JOIN ${ident(rel.def.table)} ${ident(a)} ON ${ident(a, 'id')} = ${ident(th, f.through.source)} WHERE ${ident(th, f.through.target)} = ${ident(alias, 'id')}${where})`;
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