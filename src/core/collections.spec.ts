import { append, deepMerge } from './collections';

describe('append', () => {
  it('creates the list for a new key and grows the same list after', () => {
    const m = new Map<string, number[]>();
    append(m, 'a', 1);
    const list = m.get('a');
    append(m, 'a', 2);
    append(m, 'b', 3);
    expect(m.get('a')).toBe(list);
    expect([...m]).toEqual([['a', [1, 2]], ['b', [3]]]);
  });
});

describe('deepMerge', () => {
  it('merges as the reference: objects key by key, anything else replaced, __proto__ a plain key', () => {
    const merged = deepMerge({ a: { x: 1, y: [1] }, b: 1 }, JSON.parse('{"a": {"y": [2], "z": 3}, "b": {"c": 1}, "__proto__": {"polluted": true}}'));
    expect(JSON.stringify(merged)).toBe('{"a":{"x":1,"y":[2],"z":3},"b":{"c":1},"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });
});
