import { newId } from './ids';

describe('newId', () => {
  it('is a version 7 UUID (RFC 9562) carrying the time it was made', () => {
    const before = Date.now();
    const id = newId();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    // The clock, or (after a burst of ids) a millisecond or so ahead of it.
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 50);
  });

  // The point of them: a table keyed by them takes new rows at its end (InnoDB keeps rows in
  // key order), however many are made in one millisecond (more than the counter's 4,096 too).
  it('only ever grows, as text, and never repeats', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) if (!(ids[i - 1] < ids[i])) throw new Error(`${ids[i - 1]} then ${ids[i]}`);
  });

  it('draws its random part anew for each id', () => {
    const tails = new Set(Array.from({ length: 2_000 }, () => newId().slice(19)));
    expect(tails.size).toBe(2_000);
  });
});
