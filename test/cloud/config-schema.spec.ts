import { pyRepr } from '../../src/core/json-schema/py-repr';
import { configError } from '../../src/modules/cloud/config-schema';

/** extra_config against a config_schema: draft 7, the first error in the words of Python's jsonschema. */
describe('cloud config schemas', () => {
  const schemas = { check: configError };

  it("prints values as Python's repr", () => {
    expect(pyRepr({ a: [1, 'x', null, true, false], "it's": 'say "hi"' })).toBe(`{'a': [1, 'x', None, True, False], "it's": 'say "hi"'}`);
  });

  it('words the first error as the reference does', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 3, pattern: '^[a-z]+$' },
        size: { type: 'integer', minimum: 1, maximum: 9 },
        tags: { type: 'array', uniqueItems: true },
        nested: { type: 'object', required: ['id'] },
      },
    };
    expect(schemas.check(schema, { name: '' })).toBe("'' should be non-empty");
    expect(schemas.check(schema, { name: 'abcd' })).toBe("'abcd' is too long");
    expect(schemas.check(schema, { name: 'AB' })).toBe("'AB' does not match '^[a-z]+$'");
    expect(schemas.check(schema, { size: 0 })).toBe('0 is less than the minimum of 1');
    expect(schemas.check(schema, { size: 10 })).toBe('10 is greater than the maximum of 9');
    expect(schemas.check(schema, { size: 1.5 })).toBe("1.5 is not of type 'integer'");
    expect(schemas.check(schema, { tags: [1, 1] })).toBe('[1, 1] has non-unique elements');
    expect(schemas.check(schema, { nested: {} })).toBe("'id' is a required property");
    expect(schemas.check(schema, { name: 'ab', size: 3, tags: [1, 2], nested: { id: 1 } })).toBeUndefined();
  });

  it('checks only a non-empty object schema, and refuses a schema that does not compile or backtracks', () => {
    expect(schemas.check({}, 'anything')).toBeUndefined();
    expect(schemas.check(null, 'anything')).toBeUndefined();
    expect(schemas.check({ type: 'nonsense' }, 1)).toMatch(/^Invalid config_schema: /);
    expect(schemas.check({ type: 'string', pattern: '^(a+)+$' }, 'aaaa')).toMatch(/^Invalid config_schema: '\^\(a\+\)\+\$' is not a 'regex': Regular expression is too costly/);
    // Two schemas may carry the same $id.
    expect(schemas.check({ $id: 'https://example.com/s', type: 'string' }, 1)).toBe("1 is not of type 'string'");
    expect(schemas.check({ $id: 'https://example.com/s', type: 'integer' }, 'x')).toBe("'x' is not of type 'integer'");
  });
});
