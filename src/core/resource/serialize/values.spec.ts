import { slugify, slugifyText } from './values';

describe('slugify', () => {
  it('makes the slugs of the reference', () => {
    expect(slugify('172.16.1.5')).toBe('172-16-1-5');
    expect(slugify('2001:db8::1')).toBe('2001-db8-1');
    expect(slugify('10.0.0.0/8')).toBe('10-0-0-0-8');
    expect(slugify('Global')).toBe('global');
    expect(slugify('Data Center (Paris) – Hall 1')).toBe('data-center-paris-hall-1');
    expect(slugify('Zürich')).toBe('zurich');
    expect(slugify('-_site_-')).toBe('site');
    expect(slugify('a__b--c..d')).toBe('a__b-c-d');
  });

  it('gives for plain text exactly what the general steps give', () => {
    const alphabet = 'ab09_./:-';
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      const s = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join('');
      expect([s, slugify(s)]).toEqual([s, slugifyText(s)]);
    }
  });
});
