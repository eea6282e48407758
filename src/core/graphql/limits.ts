import { FragmentDefinitionNode, GraphQLError, Kind, OperationDefinitionNode, SelectionSetNode, ValidationContext, ValidationRule } from 'graphql';

export interface QueryLimits {
  /** How deep selections may nest (the root field is level 1; introspection is not counted). */
  maxDepth: number;
  /** How many fields a query may select, each fragment counted wherever it is spread. */
  maxFields: number;
}

interface Measure {
  depth: number;
  fields: number;
}

/**
 * Refuses, before anything runs, a query nested deeper than `maxDepth` or selecting more than
 * `maxFields` fields (fragments counted at every spread, so a few fragments that each spread the
 * next several times cannot multiply into a runaway): a GraphQL error, answered with 400 as any
 * invalid query. Each fragment is measured once; a fragment cycle (refused by the standard rules)
 * counts as nothing here.
 */
export function limitsRule(limits: QueryLimits): ValidationRule {
  return (context: ValidationContext) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const measured = new Map<string, Measure>();
    const visiting = new Set<string>();

    const measure = (set: SelectionSetNode | undefined): Measure => {
      if (!set) return { depth: 0, fields: 0 };
      let depth = 0;
      let fields = 0;
      for (const s of set.selections) {
        let m: Measure;
        if (s.kind === Kind.FIELD) {
          // Introspection (`__schema`, `__type`) nests by the schema's shape, not the data's.
          if (s.name.value.startsWith('__')) continue;
          const inner = measure(s.selectionSet);
          m = { depth: inner.depth + 1, fields: inner.fields + 1 };
        } else if (s.kind === Kind.INLINE_FRAGMENT) {
          m = measure(s.selectionSet);
        } else {
          m = spread(s.name.value);
        }
        depth = Math.max(depth, m.depth);
        fields = Math.min(Number.MAX_SAFE_INTEGER, fields + m.fields);
      }
      return { depth, fields };
    };
    const spread = (name: string): Measure => {
      const known = measured.get(name);
      if (known) return known;
      const f = fragments.get(name);
      if (!f || visiting.has(name)) return { depth: 0, fields: 0 };
      visiting.add(name);
      const m = measure(f.selectionSet);
      visiting.delete(name);
      measured.set(name, m);
      return m;
    };

    return {
      OperationDefinition(node: OperationDefinitionNode) {
        const m = measure(node.selectionSet);
        if (m.depth > limits.maxDepth) {
          context.reportError(new GraphQLError(`The query is nested ${m.depth} levels deep, more than the ${limits.maxDepth} allowed (GRAPHQL_MAX_DEPTH).`, { nodes: [node] }));
        }
        if (m.fields > limits.maxFields) {
          context.reportError(new GraphQLError(`The query selects ${m.fields} fields, more than the ${limits.maxFields} allowed (GRAPHQL_MAX_FIELDS).`, { nodes: [node] }));
        }
        return false;
      },
    };
  };
}
