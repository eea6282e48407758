/**
 * Topic patterns as the reference matches them (Python's `fnmatch`, case-sensitive as on POSIX):
 * `*` any run of characters (dots included), `?` one character, `[seq]` one of the set (ranges
 * `a-z`), `[!seq]` one not in it; a `[` without its `]` is itself. There is no escape character.
 */
type Token = { kind: 'char'; c: string } | { kind: 'any' } | { kind: 'star' } | { kind: 'set'; test: RegExp } | { kind: 'none' };

export type TopicPattern = (topic: string) => boolean;

const SYNTAX = /[\\\]^\[-]/;

/**
 * The class of `[...]` as Python's fnmatch.translate builds it from the text between the
 * brackets: `-` between two characters is a range (an empty range, `z-a`, is dropped with its
 * ends), any other `-` and every `\` are themselves, a leading `!` negates.
 */
function setToken(p: string[], i: number, j: number): Token {
  let chunks: string[][];
  if (!p.slice(i, j).includes('-')) chunks = [p.slice(i, j)];
  else {
    chunks = [];
    let start = i;
    let k = p[i] === '!' ? i + 2 : i + 1;
    for (;;) {
      k = k < j ? p.indexOf('-', k) : -1;
      if (k < 0 || k >= j) break;
      chunks.push(p.slice(start, k));
      start = k + 1;
      k += 3;
    }
    const rest = p.slice(start, j);
    if (rest.length) chunks.push(rest);
    else chunks[chunks.length - 1].push('-');
    for (let k = chunks.length - 1; k > 0; k--) {
      const left = chunks[k - 1];
      if (left.length && chunks[k].length && left[left.length - 1] > chunks[k][0]) {
        chunks[k - 1] = [...left.slice(0, -1), ...chunks[k].slice(1)];
        chunks.splice(k, 1);
      }
    }
  }
  // The class in JavaScript's terms: every character of a chunk literal, ranges between chunks.
  const literal = (c: string) => (SYNTAX.test(c) ? `\\${c}` : c);
  const text = chunks.map((c) => c.join('')).join('-');
  if (!text) return { kind: 'none' };
  if (text === '!') return { kind: 'any' };
  const negated = text[0] === '!';
  const parts = chunks.map((c, n) => (n === 0 && negated ? c.slice(1) : c).map(literal).join(''));
  return { kind: 'set', test: new RegExp(`^[${negated ? '^' : ''}${parts.join('-')}]$`, 'su') };
}

function tokens(pattern: string): Token[] {
  const p = Array.from(pattern);
  const out: Token[] = [];
  for (let i = 0; i < p.length; ) {
    const c = p[i++];
    if (c === '*') {
      if (out[out.length - 1]?.kind !== 'star') out.push({ kind: 'star' });
    } else if (c === '?') out.push({ kind: 'any' });
    else if (c === '[') {
      let j = i;
      if (j < p.length && p[j] === '!') j++;
      if (j < p.length && p[j] === ']') j++;
      while (j < p.length && p[j] !== ']') j++;
      if (j >= p.length) out.push({ kind: 'char', c: '[' });
      else {
        out.push(setToken(p, i, j));
        i = j + 1;
      }
    } else out.push({ kind: 'char', c });
  }
  return out;
}

const one = (t: Token, c: string) => (t.kind === 'char' ? t.c === c : t.kind === 'any' ? true : t.kind === 'set' ? t.test.test(c) : false);

/**
 * Compiles a pattern into a test. Matching walks the topic once per star it backs up to (the
 * usual wildcard algorithm: at most pattern × topic steps, never exponential, whatever the pattern).
 */
export function topicPattern(pattern: string): TopicPattern {
  const toks = tokens(pattern);
  return (topic: string) => {
    const s = Array.from(topic);
    let ti = 0;
    let si = 0;
    let star = -1;
    let mark = 0;
    while (si < s.length) {
      const t = toks[ti];
      if (t && t.kind !== 'star' && one(t, s[si])) {
        ti++;
        si++;
      } else if (t?.kind === 'star') {
        star = ti++;
        mark = si;
      } else if (star >= 0) {
        ti = star + 1;
        si = ++mark;
      } else return false;
    }
    while (toks[ti]?.kind === 'star') ti++;
    return ti === toks.length;
  };
}

/** Whether any of the patterns matches the topic (the reference's is_topic_match). */
export function matchesAny(patterns: readonly TopicPattern[], topic: string): boolean {
  return patterns.some((p) => p(topic));
}
