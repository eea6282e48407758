import { asWritten, compileEncoder, encoderOf, NestedTexts, representations, withEncoder } from '../resource/serialize/json-encoder';
import { CHUNK_BYTES, jsonChunks, withRepresentations } from './json-body';

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

  it('writes representations that nest others in pieces, with the same bytes', () => {
    // Nested objects (a location type shared by every row, a tenant each) with multi-byte text
    // and one larger than a chunk, written piece by piece (Encoder.into) across chunk boundaries.
    const encodeNested = compileEncoder(['id', 'name'], { id: 'plain' })!;
    const encodeRow = compileEncoder(['id', 'type', 'tenant', 'n'], { id: 'plain', type: 'nested', tenant: 'nested' })!;
    expect(encodeRow.into).toBeDefined();
    const type = { id: 't', name: 'Site é北🚀' };
    const tenants = Array.from({ length: 50 }, (_, i) => ({ id: `x${i}`, name: `é北🚀${'y'.repeat(i * 37)}` }));
    tenants[7].name = '北'.repeat(CHUNK_BYTES);
    const texts = new NestedTexts();
    texts.add([type, ...tenants], encodeNested);
    const items = Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}`, type, tenant: i % 11 ? tenants[i % 50] : null, n: i }));
    const expected = JSON.stringify({ count: items.length, results: items });
    for (const results of [withEncoder([...items], encodeRow, texts), withEncoder([...items], encodeRow)]) {
      const chunks = jsonChunks({ count: items.length, results })!;
      expect(Buffer.concat(chunks).toString('utf8')).toBe(expected);
      expect(chunks.length).toBeGreaterThan(3);
    }
  });
});

/**
 * A list made `asWritten` stands for representations made one by one as the body is written:
 * the bytes are those of the representations, each made once and only when written, and a
 * reader of the body (the browsable page) gets the representations themselves.
 */
describe('representations made as written', () => {
  const encode = compileEncoder(['id', 'name'], { id: 'plain' })!;
  const rows = [{ pk: 'a', label: 'First "one"' }, { pk: 'b', label: 'Zürich' }];
  const made = () => {
    const make = jest.fn((r: { pk: string; label: string }) => ({ id: r.pk, name: r.label }));
    return { make, list: asWritten(rows, make, encode) };
  };
  const expected = rows.map((r) => ({ id: r.pk, name: r.label }));

  it('writes the representations, each made once and only as it is written', () => {
    const { make, list } = made();
    expect(make).not.toHaveBeenCalled();
    const page = { count: 2, next: null, previous: null, results: list };
    expect(Buffer.concat(jsonChunks(page)!).toString('utf8')).toBe(JSON.stringify({ ...page, results: expected }));
    expect(make.mock.calls.map(([r]) => r.pk)).toEqual(['a', 'b']);
    expect(Buffer.concat(jsonChunks(list)!).toString('utf8')).toBe(JSON.stringify(expected));
  });

  it('gives a reader the representations (with their encoder), and any other body as it is', () => {
    const { list } = made();
    const page = withRepresentations({ count: 2, next: null, previous: null, results: list }) as { results: unknown[] };
    expect(page.results).toEqual(expected);
    expect(encoderOf(page.results)).toBe(encode);
    expect(withRepresentations(list)).toEqual(expected);
    const plain = { results: [{ id: 'x' }] };
    expect(withRepresentations(plain)).toEqual(plain);
    expect(representations(plain.results)).toBe(plain.results);
    expect(withRepresentations('text')).toBe('text');
  });
});
