import { parse } from 'csv-parse/sync';
import { csvRecords } from './csv-import';

/** csv-parse as the import calls it: the reference csvRecords must agree with. */
const reference = (text: string): string[][] | string => {
  try {
    return parse(text, { skip_empty_lines: true, relax_column_count: false, bom: true }) as string[][];
  } catch (e) {
    return (e as Error).message;
  }
};
const records = (text: string): string[][] | string => {
  try {
    return csvRecords(text);
  } catch (e) {
    return (e as Error).message;
  }
};

describe('csvRecords', () => {
  it('reads a text without quotes as csv-parse does: empty lines skipped, spaces and empty cells kept', () => {
    for (const text of ['a,b\n1,2', 'a,b\n1,2\n', 'a,b\n\n1,2\n\n\n', ' a , b \n, \n,', 'ünï,☃\n𝄞,x', 'a\n\n', 'a,b,\n1,2,']) {
      expect(records(text)).toEqual(reference(text));
    }
  });

  it('leaves quotes, carriage returns and records of another length to csv-parse (its records, its errors)', () => {
    for (const text of ['a,b\n"1,5",2', 'a,b\r\n1,2\r\n', 'a,b\r1,2', 'a,b\n1\n', 'a,b\n  \n1,2', 'a\n"x""y"']) {
      expect(records(text)).toEqual(reference(text));
    }
    expect(records('a,b\n1\n')).toMatch(/expect 2, got 1 on line 2/);
  });

  it('agrees with csv-parse on random texts', () => {
    const alphabet = ['a', 'b', ',', ',', '\n', '\n', ' ', 'é', '"', '\r'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let n = 0; n < 3000; n++) {
      const length = 1 + Math.floor(next() * 30);
      // Half of them without quotes or carriage returns, the texts the fast path takes.
      const letters = n % 2 ? alphabet : alphabet.slice(0, 8);
      const text = Array.from({ length }, () => letters[Math.floor(next() * letters.length)]).join('');
      expect([text, records(text)]).toEqual([text, reference(text)]);
    }
  });
});
