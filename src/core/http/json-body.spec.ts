import { CHUNK_BYTES, jsonChunks } from './json-body';

describe('jsonChunks', () => {
  const text = (v: unknown) => {
    const chunks = jsonChunks(v);
    return chunks && Buffer.concat(chunks).toString('utf8');
  };
  const same = (v: unknown) => expect(text(v)).toBe(JSON.stringify(v));

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
    expect(jsonChunks(undefined)).toBeUndefined();
    // an object with its own toJSON is left to JSON.stringify
    same({ results: [1], toJSON: () => ({ other: true }) });
  });

  it('splits a long list into chunks of at most CHUNK_BYTES, except an item larger than that', () => {
    // Multi-byte characters near every chunk boundary, and one item larger than a chunk.
    const items = Array.from({ length: 3000 }, (_, i) => ({ i, name: `é北🚀${'x'.repeat(i % 97)}` }));
    items.splice(1500, 0, { i: -1, name: '北'.repeat(CHUNK_BYTES) });
    const body = { count: items.length, results: items };
    const chunks = jsonChunks(body)!;
    expect(Buffer.concat(chunks).toString('utf8')).toBe(JSON.stringify(body));
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.filter((c) => c.length > CHUNK_BYTES)).toHaveLength(1);
    expect(chunks.every((c) => c.toString('utf8') === Buffer.from(c.toString('utf8')).toString('utf8') && !c.toString('utf8').includes('\uFFFD'))).toBe(true);
  });
});
