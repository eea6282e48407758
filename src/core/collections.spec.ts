import { append } from './collections';

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
