/**
 * A tiny SQL fragment builder. Fragments keep text, identifiers and bound values apart until
 * they are rendered for one dialect, so values always travel as bound parameters and
 * identifiers are quoted by the dialect, never spliced by hand.
 */
export type SqlNode =
  | { t: 'text'; v: string }
  | { t: 'param'; v: unknown }
  | { t: 'ident'; v: string[] }
  /** `IN (<values>)`, or whatever the dialect binds a list of plain values with (one array). */
  | { t: 'in'; v: readonly (string | number)[] }
  /** Rows of values, `($1, $2), ($3, $4)`: a multi-row INSERT's VALUES (on MySQL written as literals: mysql-literals.ts). */
  | { t: 'values'; v: readonly (readonly unknown[])[] }
  /** A RenderedSql's only node: it is a whole statement, never part of another. */
  | { t: 'rendered' };

export class Sql {
  constructor(readonly nodes: readonly SqlNode[]) {}
  get isEmpty(): boolean {
    return this.nodes.every((n) => n.t === 'text' && n.v.trim() === '');
  }
}

/**
 * A statement already rendered for a dialect (its text and values), run as it is: a statement
 * built and rendered once, then run with other values (a detail's, ResourceService.findOne).
 * A whole statement only: embedded in another fragment, it fails to render.
 */
export class RenderedSql extends Sql {
  constructor(
    readonly dialect: string,
    readonly text: string,
    readonly params: readonly unknown[],
  ) {
    super([{ t: 'rendered' }]);
  }
}

export type SqlValue = Sql | unknown;

/** Tagged template: interpolated Sql fragments are embedded, anything else becomes a parameter. */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): Sql {
  const nodes: SqlNode[] = [];
  strings.forEach((s, i) => {
    if (s) nodes.push({ t: 'text', v: s });
    if (i < values.length) {
      const v = values[i];
      if (v instanceof Sql) nodes.push(...v.nodes);
      else nodes.push({ t: 'param', v });
    }
  });
  return new Sql(nodes);
}

/** Trusted SQL text (keywords, operators). Never pass client input here. */
export const raw = (text: string): Sql => new Sql([{ t: 'text', v: text }]);
/** A quoted identifier, optionally qualified: ident('t', 'name') -> "t"."name". */
export const ident = (...parts: string[]): Sql => new Sql([{ t: 'ident', v: parts }]);
export const param = (v: unknown): Sql => new Sql([{ t: 'param', v }]);
/**
 * The rows of a multi-row INSERT, `(v1, v2), (v3, v4)`, each value a parameter: one node for all
 * of them (a fragment per value, joined, was ~4 objects a value: 100,000 for 1,000 rows of a
 * model of 25 columns).
 */
export const valueRows = (rows: readonly (readonly unknown[])[]): Sql => new Sql([{ t: 'values', v: rows }]);
export const empty = new Sql([]);

export function join(parts: readonly Sql[], separator = ', '): Sql {
  const nodes: SqlNode[] = [];
  parts.forEach((p, i) => {
    if (i) nodes.push({ t: 'text', v: separator });
    nodes.push(...p.nodes);
  });
  return new Sql(nodes);
}

export const TRUE = raw('1=1');
export const FALSE = raw('1=0');

/** A condition that is TRUE as built (an open permission scope): nothing to AND. */
export const isTrue = (p: Sql): boolean => p === TRUE || (p.nodes.length === 1 && p.nodes[0].t === 'text' && p.nodes[0].v === '1=1');
/** A condition that is FALSE as built (a closed permission scope): nothing can match. */
export const isFalse = (p: Sql): boolean => p === FALSE || (p.nodes.length === 1 && p.nodes[0].t === 'text' && p.nodes[0].v === '1=0');

export function and(parts: readonly (Sql | null | undefined)[]): Sql {
  const list = parts.filter((p): p is Sql => !!p && !p.isEmpty && !isTrue(p));
  if (!list.length) return TRUE;
  if (list.length === 1) return list[0];
  return sql`(${join(list.map((p) => sql`(${p})`), ' AND ')})`;
}

export function or(parts: readonly (Sql | null | undefined)[]): Sql {
  const list = parts.filter((p): p is Sql => !!p && !p.isEmpty);
  if (!list.length) return FALSE;
  if (list.length === 1) return list[0];
  return sql`(${join(list.map((p) => sql`(${p})`), ' OR ')})`;
}

export const not = (p: Sql): Sql => sql`NOT (${p})`;

/** `expr IN (v1, v2, ...)`; an empty list is false. */
export function inList(expr: Sql, values: readonly unknown[]): Sql {
  if (!values.length) return FALSE;
  if (values.every((v) => typeof v === 'string' || typeof v === 'number')) return new Sql([...expr.nodes, { t: 'in', v: values as (string | number)[] }]);
  return sql`${expr} IN (${join(values.map((v) => (v instanceof Sql ? v : param(v))))})`;
}
