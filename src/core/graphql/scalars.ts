import { GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';
import type { ScalarField } from '../resource/fields';

/** Any JSON value (custom field data, config contexts, JSON fields), as the reference's `JSON` scalar. */
export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});

/** An integer beyond 32 bits (an ASN), as the reference's `BigInteger`. */
export const BigIntegerScalar = new GraphQLScalarType({
  name: 'BigInteger',
  description: 'An integer that may exceed 32 bits.',
  serialize: (v) => (typeof v === 'number' ? v : Number(v)),
  parseValue: (v) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new TypeError(`BigInteger cannot represent ${JSON.stringify(v)}`);
    return v;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) throw new TypeError('BigInteger takes an integer');
    const n = Number(ast.value);
    if (!Number.isSafeInteger(n)) throw new TypeError(`BigInteger cannot represent ${ast.value}`);
    return n;
  },
});

const INT32_MAX = 2147483647;

/** Whether an integer field's values may pass 32 bits. */
export const isBigInteger = (f: ScalarField) => f.storage === 'bigint' || (f.maxValue ?? 0) > INT32_MAX || (f.minValue ?? 0) < -INT32_MAX - 1;
