import { compileEncoder, constant, encoderOf, NestedTexts, ValueKind, withEncoder } from './json-encoder';

/** The compiled encoder writes what JSON.stringify writes, for every kind of value. */
describe('compileEncoder', () => {
  const kinds: Record<string, ValueKind> = { id: 'plain', url: 'plain', status: { ref: 'extras.status' }, when: 'plain' };
  const keys = ['id', 'url', 'status', 'display', 'n', 'flag', 'nested', 'list', 'when', 'gone'];
  const encode = compileEncoder(keys, kinds)!;
  const base = {
    id: '1c67866c-ca05-47c2-b546-a75fbb76519a',
    url: 'http://h/api/x/1c67866c-ca05-47c2-b546-a75fbb76519a/',
    status: { id: 'e45cd7cf-e0b3-4131-b7d6-461e91f034eb', object_type: 'extras.status', url: 'http://h/api/extras/statuses/e45cd7cf-e0b3-4131-b7d6-461e91f034eb/' },
    display: 'plain text',
    n: 4,
    flag: true,
    nested: { value: 'host', label: 'Host' },
    list: [1, 'two', null],
    when: '2026-11-24T07:10:13.379000Z',
    gone: undefined as unknown,
  };

  const cases: [string, Record<string, unknown>][] = [
    ['plain values', base],
    ['strings that need escaping', { ...base, display: 'a "quoted" \\ back\nslash\t\u0001 é → 😀', nested: { label: 'x"y' } }],
    ['a lone surrogate', { ...base, display: 'bad \ud800 half' }],
    ['null references and values', { ...base, status: null, display: null, nested: null, when: null }],
    ['numbers JSON has no literal for', { ...base, n: Number.NaN, list: [Infinity, -0] }],
    ['values left out (undefined, functions)', { ...base, display: undefined, n: () => 1, gone: undefined }],
    ['a value with toJSON', { ...base, nested: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) }],
    ['a plain key holding a non-string', { ...base, url: 7, when: undefined }],
    ['a reference key holding something else', { ...base, status: 'text' }],
  ];
  it.each(cases)('%s', (_, item) => {
    expect(encode(item)).toBe(JSON.stringify(item));
  });

  it('writes empty lists and objects, and constants, as JSON.stringify does', () => {
    const choice = constant({ value: 'host', label: 'Host' });
    expect(Object.isFrozen(choice)).toBe(true);
    for (const nested of [choice, {}, [], Object.create(null), { a: undefined }, [undefined], new Map()]) {
      const item = { ...base, nested };
      expect(encode(item)).toBe(JSON.stringify(item));
    }
  });

  // The encoder keeps the text of the last reference per key: a row with another reference, or
  // the same content in another object, must still be written as it is.
  it('writes each row its own reference, shared or not', () => {
    const other = { ...base.status, id: 'aaaaaaaa-0000-4000-8000-000000000000', url: 'http://h/api/extras/statuses/aaaaaaaa-0000-4000-8000-000000000000/' };
    for (const status of [base.status, base.status, other, base.status, { ...base.status }, null, other]) {
      const item = { ...base, status };
      expect(encode(item)).toBe(JSON.stringify(item));
    }
  });

  // A nested object is written once, by its batch's encoder when it has one (NestedTexts), and
  // its text written again for every row showing it; any other object a 'nested' key holds (a
  // reference, another object of the same id) is written as it is.
  it('writes nested objects as JSON.stringify does, each once', () => {
    const tenantKeys = ['id', 'name', 'group'];
    const encodeTenant = compileEncoder(tenantKeys, { id: 'plain', group: { ref: 'tenancy.tenantgroup' } })!;
    const encodeRow = compileEncoder(['id', 'type', 'parent', 'tenant'], { id: 'plain', type: 'nested', parent: 'nested', tenant: 'nested' })!;
    expect(encodeRow.into).toBeDefined();
    const group = { id: 'g', object_type: 'tenancy.tenantgroup', url: 'http://h/g/' };
    const tenants = [1, 2].map((n) => ({ id: `t${n}`, name: `Tenant "${n}" é 北`, group }));
    const type = { id: 'lt', name: 'Site', extra: [1, { a: 'b' }] };
    const texts = new NestedTexts();
    const calls = jest.fn(encodeTenant);
    texts.add(tenants, calls);
    texts.add([type], undefined);
    // A nested object that nests others (depth 2): written through the same texts.
    const encodeMid = compileEncoder(['id', 'tenant'], { id: 'plain', tenant: 'nested' })!;
    const mid = { id: 'm', tenant: tenants[1] };
    texts.add([mid], encodeMid);
    expect(calls).toHaveBeenCalledTimes(2);
    const rows = [
      { id: 'a', type, parent: null, tenant: tenants[0] },
      { id: 'b', type, parent: { id: 'p', display: 'P\n' }, tenant: tenants[1] },
      { id: 'c', type: { ...type }, parent: 'not an object', tenant: tenants[0] },
      { id: 'd', type, parent: undefined, tenant: tenants[1] },
      { id: 'e', type: null, parent: [], tenant: tenants[0] },
      { id: 'f', type, parent: mid, tenant: { ...tenants[0], name: 'changed' } },
    ];
    const written = (row: Record<string, unknown>, nested = (v: object) => texts.text(v)) => {
      let text = '';
      encodeRow.into!(row, { text: (s) => void (text += s), nested });
      return text;
    };
    for (const row of [...rows, ...rows]) {
      expect(written(row)).toBe(JSON.stringify(row));
      expect(encodeRow(row)).toBe(JSON.stringify(row));
      expect(written(row, (v) => JSON.stringify(v))).toBe(JSON.stringify(row));
    }
    // The tenants were written when added, and only then.
    expect(calls).toHaveBeenCalledTimes(2);
    // Without a nested key there is nothing to write apart: no `into`.
    expect(compileEncoder(tenantKeys, { id: 'plain' })!.into).toBeUndefined();
  });

  it('gives the same function for the same keys and kinds', () => {
    expect(compileEncoder([...keys], { ...kinds })).toBe(encode);
    expect(compileEncoder(keys, { ...kinds, when: 'any' })).not.toBe(encode);
  });

  it('travels with a list, not with a list made from it', () => {
    const list = withEncoder([base], encode);
    expect(encoderOf(list)).toBe(encode);
    expect(Object.keys(list)).toEqual(['0']);
    expect(JSON.stringify(list)).toBe(JSON.stringify([base]));
    expect(encoderOf(list.map((x) => x))).toBeUndefined();
    expect(encoderOf([...list])).toBeUndefined();
  });
});
