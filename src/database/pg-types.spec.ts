import { types } from 'pg';
import { parseTimestamptz, pgTypeParsers } from './pg-types';

const library = types.getTypeParser(1184, 'text') as (s: string) => Date;

describe('timestamptz from PostgreSQL text', () => {
  const values = [
    '2026-11-24 01:53:54+00',
    '2026-11-24 01:53:54.3+00',
    '2026-11-24 01:53:54.36+00',
    '2026-11-24 01:53:54.364+00',
    '2026-11-24 01:53:54.3649+00',
    '2026-11-24 01:53:54.364999+00',
    '2026-01-01 00:30:00+01', // the day before in UTC
    '2025-12-31 23:30:00-03',
    '2024-02-29 12:00:00.5+05:30',
    '2024-06-01 12:00:00-09:30',
    '1900-01-01 00:00:00+00:19:32', // an offset with seconds (Europe/Amsterdam before 1937)
    '1000-01-01 00:00:00+00',
    '9999-12-31 23:59:59.999999+00',
    '1970-01-01 00:00:00+00',
  ];
  it.each(values)('reads %s as node-postgres does', (s) => {
    expect(parseTimestamptz(s).getTime()).toBe(library(s).getTime());
  });

  it.each(['0099-01-01 00:00:00+00', '2020-01-01 00:00:00+00 BC', 'infinity', '-infinity', '12020-01-01 00:00:00+00', '2020-01-01 00:00:00.+00', '2020-01-01T00:00:00+00'])(
    'leaves other forms (%s) to node-postgres',
    (s) => {
      const mine = parseTimestamptz(s);
      const theirs = library(s);
      expect(mine instanceof Date ? mine.getTime() : mine).toEqual(theirs instanceof Date ? theirs.getTime() : theirs);
    },
  );

  it('gives a new Date for a value read again, and the right one after another value', () => {
    const [a, b] = ['2026-11-24 01:53:54.364+00', '2025-12-31 23:30:00-03'];
    const first = parseTimestamptz(a);
    const again = parseTimestamptz(a);
    expect(again).not.toBe(first);
    expect(again.getTime()).toBe(library(a).getTime());
    first.setTime(0); // a caller changing its Date changes nobody else's
    for (const s of [a, b, b, a, 'infinity', a]) {
      const mine = parseTimestamptz(s);
      const theirs = library(s);
      expect(mine instanceof Date ? mine.getTime() : mine).toEqual(theirs instanceof Date ? theirs.getTime() : theirs);
    }
  });

  it('is the parser given for timestamptz only', () => {
    expect(pgTypeParsers.getTypeParser(1184, 'text')).toBe(parseTimestamptz);
    expect(pgTypeParsers.getTypeParser(1114, 'text')).toBe(types.getTypeParser(1114, 'text'));
    expect(pgTypeParsers.getTypeParser(23)).toBe(types.getTypeParser(23, 'text'));
  });
});
