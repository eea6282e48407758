import { matchesAny, topicPattern } from './topics';

/** Topics and, per pattern, the indexes of those Python 3.11's fnmatch.fnmatchcase matches (computed there). */
const TOPICS = ['nautobot.create.dcim.device', 'nautobot.update.dcim.device', 'nautobot.delete.extras.tag', 'nautobot.test.event', 'nautobot.test.event.no-publish', 'a]b', 'a-b', 'a!b', 'aab', '[', 'nautobot.[', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac', 'a\\b', '', 'x', 'a^b', 'aeb', 'acc', 'aec', 'a-c', 'Nautobot.create.dcim.device', 'nautobot.\ndevice'];
const ALL = TOPICS.map((_, i) => i);
const MATCHES: [string, number[]][] = [
  ['*', ALL],
  ['**', ALL],
  ['nautobot.*', [0, 1, 2, 3, 4, 10, 21]],
  ['nautobot.create.*', [0]],
  ['*.dcim.*', [0, 1, 20]],
  ['nautobot.?pdate.dcim.device', [1]],
  ['nautobot.[cu]*', [0, 1]],
  ['nautobot.[!cu]*', [2, 3, 4, 10, 21]],
  ['nautobot.[a-d]*', [0, 2]],
  ['nautobot.[z-a]*', []],
  ['nautobot.[!z-a]*', [0, 1, 2, 3, 4, 10, 21]],
  ['[', [9]],
  ['nautobot.[', [10]],
  ['a[]]b', [5]],
  ['a[!]]b', [6, 7, 8, 12, 15, 16]],
  ['a[-]b', [6]],
  ['a[!-]b', [5, 7, 8, 12, 15, 16]],
  ['a[a-]b', [6, 8]],
  ['*.no-publish*', [4]],
  ['nautobot.test.*', [3, 4]],
  ['*a*a*a*a*a*b', []],
  ['a\\b', [12]],
  ['a[\\]b', [12]],
  ['', [13]],
  ['x*', [14]],
  ['*x', [14]],
  ['a[^]b', [15]],
  ['a[b-d-f]c', [17, 19]],
];

describe('topic patterns (fnmatch)', () => {
  it.each(MATCHES)('%j matches what Python matches', (pattern, expected) => {
    const test = topicPattern(pattern);
    expect(TOPICS.map((t, i) => [i, test(t)]).filter(([, m]) => m).map(([i]) => i)).toEqual(expected);
  });

  it('stays linear on patterns that would backtrack as regular expressions', () => {
    const started = Date.now();
    expect(topicPattern(`${'*a'.repeat(30)}*b`)('a'.repeat(5000))).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('matches any of several patterns', () => {
    const patterns = ['nautobot.create.*', 'nautobot.jobs.*'].map(topicPattern);
    expect(['nautobot.create.dcim.device', 'nautobot.jobs.job.started', 'nautobot.update.dcim.device'].map((t) => matchesAny(patterns, t))).toEqual([true, true, false]);
    expect(matchesAny([], 'anything')).toBe(false);
  });
});
