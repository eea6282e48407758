import { declaredVariables, queryErrors } from '../../../core/graphql/graphql.service';
import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { escapeLike } from '../../../core/resource/query/lookups';
import { named } from '../../../core/resource/mixin';
import { ownerFields, ownerObjectId } from '../config-contexts/owner';

/**
 * A saved GraphQL query (the reference's GraphQLQuery): a name, the query, and `variables`, read
 * only: the variables the query declares, each with its default (or ""), as the reference fills
 * them on save. The query is checked on save against the schema and the limits of the moment
 * (`{"query": [<message>]}`). Run with `POST graphql-queries/<id>/run/` (run.controller.ts).
 */
export const graphqlQueryResource = defineResource({
  app: 'extras',
  model: 'graphqlquery',
  slug: 'graphql-queries',
  verboseName: 'GraphQL query',
  className: 'GraphQLQuery',
  mixins: [named(255)],
  fields: {
    ...ownerFields(),
    query: field.text({ required: true, help: 'The GraphQL query' }),
    variables: field.json({ readOnly: true, default: () => ({}), help: 'The variables the query declares, with their defaults' }),
    owner_object_id: ownerObjectId(),
  },
  search: ['name'],
  filters: {
    /** `q` also looks into the query text (the reference's `query__icontains`). */
    q: { compile: (values, _l, h) => h.exec.dialect.ilike(h.col('query'), `%${escapeLike(String(values[0]))}%`) },
  },
  features: ['notes'],
  async rules(s, w) {
    if (!s.create && !s.touched.has('query')) return;
    const query = s.values.query;
    if (typeof query !== 'string' || !query.trim()) return;
    const errors = await queryErrors(w.ctx, query);
    if (errors.length) return { query: errors };
  },
  beforeSave(states) {
    for (const s of states) if (s.create || s.touched.has('query')) s.values.variables = declaredVariables(String(s.values.query));
  },
});
