import { jsonBody } from './json-body';

describe('jsonBody', () => {
  const same = (v: unknown) => expect(jsonBody(v)?.toString('utf8')).toBe(JSON.stringify(v));

  it('writes exactly the bytes of JSON.stringify', () => {
    const item = { id: 'a', name: 'Zürich → 北京 🚀', n: 1.5, none: null, gone: undefined, when: new Date(0), nested: { list: [1, undefined, () => 1] } };
    same({ count: 2, next: null, previous: 'x"y', results: [item, { ...item, id: 'b' }] });
    same({ results: [] });
    same({ skipped: undefined, results: [undefined, () => 1, Symbol('s'), null, 0, ''] });
    same({ results: [1], after: undefined });
    same({ results: [1], [Symbol('k')]: 1, 'quote"key': true });
    same([item, item]);
    same([]);
    same({ detail: 'Not found.' });
    same('text');
    same(42);
    same(null);
    expect(jsonBody(undefined)).toBeUndefined();
    // an object with its own toJSON is left to JSON.stringify
    same({ results: [1], toJSON: () => ({ other: true }) });
  });
});
