import { dataError, schemaError } from './json-schema';
import { pyRepr } from './py-repr';

/** The reference's words (Python jsonschema 4.26 under Nautobot 2.4.36) for what clients commonly get wrong. */
describe('JSON Schema messages in the reference words', () => {
  const schema = {
    type: 'object',
    properties: {
      ntp: { type: 'string', format: 'ipv4' },
      level: { type: 'integer', minimum: 1, maximum: 7 },
      mode: { enum: ['client', 'server'] },
      servers: { type: 'array', minItems: 1, uniqueItems: true },
      name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
      nested: { type: 'object', properties: { port: { type: 'integer' } } },
    },
    required: ['ntp'],
    additionalProperties: false,
  };

  it.each([
    [{}, "'ntp' is a required property"],
    [{ ntp: 5 }, "5 is not of type 'string'"],
    [{ ntp: '10.0.0' }, "'10.0.0' is not a 'ipv4'"],
    [{ ntp: '10.0.0.1', level: 0 }, '0 is less than the minimum of 1'],
    [{ ntp: '10.0.0.1', level: 9 }, '9 is greater than the maximum of 7'],
    [{ ntp: '10.0.0.1', mode: 'peer' }, "'peer' is not one of ['client', 'server']"],
    [{ ntp: '10.0.0.1', servers: [] }, '[] should be non-empty'],
    [{ ntp: '10.0.0.1', servers: ['a', 'a'] }, "['a', 'a'] has non-unique elements"],
    [{ ntp: '10.0.0.1', name: 'Abc' }, "'Abc' does not match '^[a-z]+$'"],
    [{ ntp: '10.0.0.1', name: 'abcdefg' }, "'abcdefg' is too long"],
    [{ ntp: '10.0.0.1', nested: { port: 'x' } }, "'x' is not of type 'integer'"],
    [{ ntp: '10.0.0.1', b: 1, a: true }, "Additional properties are not allowed ('a', 'b' were unexpected)"],
    // The error nearest the root wins.
    [{ nested: { port: 'x' } }, "'ntp' is a required property"],
  ])('%j: %s', (data, message) => {
    expect(dataError(schema, data)).toBe(message);
  });

  it('accepts valid data', () => {
    expect(dataError(schema, { ntp: '10.0.0.1', level: 3, mode: 'client', servers: ['a'], name: 'abc', nested: { port: 123 } })).toBeUndefined();
  });

  it('checks schemas against the draft 7 meta-schema', () => {
    expect(schemaError({ type: 'object', properties: { a: { type: 'nonsense' } } })).toBe("'nonsense' is not valid under any of the given schemas");
    expect(schemaError({ type: 'object', properties: { a: { minLength: -1 } } })).toBe('-1 is less than the minimum of 0');
    expect(schemaError({ type: 'object', properties: { a: { pattern: '[' } } })).toBe("'[' is not a 'regex'");
    expect(schemaError({ type: 'object', properties: { a: { pattern: '(a+)+$' } } })).toMatch(/^'\(a\+\)\+\$' is not a 'regex': /);
    expect(schemaError(null)).toBe("None is not of type 'object', 'boolean'");
    expect(schemaError({ type: 'object', properties: {}, $ref: 'http://example.com/remote' })).toMatch(/can't resolve reference/);
    expect(schemaError({ type: 'object', properties: { a: { type: 'string', format: 'unknown-format' } } })).toBeUndefined();
  });

  it('reads every schema as draft 7, whatever its $schema says (the reference ignores it), and never throws', () => {
    for (const $schema of ['http://json-schema.org/draft-04/schema#', 'https://json-schema.org/draft/2019-09/schema', 5]) {
      const s = { $schema, type: 'object', properties: { a: { type: 'integer' } } };
      expect(schemaError(s)).toBeUndefined();
      expect(dataError(s, { a: 'x' })).toBe("'x' is not of type 'integer'");
    }
  });

  it('prints values as Python does', () => {
    expect(pyRepr({ a: [1, true, null, "it's"], b: 'x\ny' })).toBe(`{'a': [1, True, None, "it's"], 'b': 'x\\ny'}`);
  });

});
