import { fitDepth, nestedDeeperThan } from './json-limits';

const nested = (n: number): unknown => (n === 0 ? 'bottom' : { d: nested(n - 1) });

describe('fitDepth', () => {
  it('keeps a value that fits as it is, the same object', () => {
    const v = { a: nested(29) };
    expect(fitDepth(v, 30)).toBe(v);
  });

  it('keeps what lies deeper than the bound as its JSON text, so the whole fits', () => {
    const v = { custom_fields: { blob: nested(30) }, name: 'x', list: [1, [2]] };
    const out = fitDepth(v, 30) as any;
    expect(nestedDeeperThan(out, 30)).toBe(false);
    expect(out.name).toBe('x');
    expect(out.list).toEqual([1, [2]]);
    let node = out.custom_fields.blob;
    for (let i = 0; i < 27; i++) node = node.d; // blob is at level 3: this node at level 30
    expect(node.d).toBe(JSON.stringify({ d: { d: 'bottom' } }));
  });
});

describe('nestedDeeperThan', () => {
  it('counts levels of objects and arrays alike, and stops at the bound however deep the value goes', () => {
    expect(nestedDeeperThan(nested(30), 30)).toBe(false);
    expect(nestedDeeperThan(nested(31), 30)).toBe(true);
    expect(nestedDeeperThan({ a: [[{ b: 1 }]] }, 4)).toBe(false);
    expect(nestedDeeperThan({ a: [[{ b: 1 }]] }, 3)).toBe(true);
    expect(nestedDeeperThan({ a: 1, b: [[{ c: [] }]] }, 4)).toBe(true);
    expect(nestedDeeperThan('text', 0)).toBe(false);
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(nestedDeeperThan(deep, 100)).toBe(true);
  });
});
