const Sequencer = require('@jest/test-sequencer').default;

/**
 * The order suites start in, two workers taking the next one as they free up: longest first, so
 * that no long suite starts last while the other worker idles. Jest knows the durations only from
 * its cache of an earlier run on this machine; a clean CI clone has none, and jest would then go
 * by file size, which starts the contract shards (files of a few lines) last. So, unless every
 * suite has a cached duration, the suites known to be long go first, in this order: the contract
 * shards (test/contract/, the slowest database first), then the suites listed in LONG; the rest follow by jest's own order.
 */
const LONG = ['test/behaviour/hostile-input.e2e-spec'];

/** The contract shards by database, slowest first; then LONG; then the rest. */
const CONTRACT = ['mysql', 'postgres', 'pglite'];

const rank = (path) => {
  const p = path.replace(/\\/g, '/');
  const contract = /\/test\/contract\/(\w+)\.\d+\.e2e-spec\.[jt]s$/.exec(p);
  if (contract) return CONTRACT.indexOf(contract[1]);
  return LONG.some((l) => p.endsWith(`${l}.js`) || p.endsWith(`${l}.ts`)) ? CONTRACT.length : CONTRACT.length + 1;
};

class LongestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.every((t) => t.duration != null)) return sorted;
    // Array.prototype.sort is stable: within a rank, jest's own order is kept.
    return [...sorted].sort((a, b) => rank(a.path) - rank(b.path));
  }
}

module.exports = LongestFirst;
