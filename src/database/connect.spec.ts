import type { OpenDatabase } from './data-source.factory';
import { describeTarget, openWithRetry } from './connect';

describe('opening a database server that is not up yet', () => {
  const target = { kind: 'postgres' as const, url: 'postgres://netkeel:s3cret@db.example:5433/nk' };

  it('names where it is, never the password', () => {
    expect(describeTarget(target)).toBe('PostgreSQL at db.example:5433/nk');
    expect(describeTarget({ kind: 'mysql', url: 'mysql://root:pw@127.0.0.1/test' })).toBe('MySQL/MariaDB at 127.0.0.1:3306/test');
    expect(describeTarget({ kind: 'pglite', dataDir: 'memory://' })).toBe('embedded PGlite in memory');
  });

  it('tries again with backoff, one line per attempt, until it opens', async () => {
    const lines: string[] = [];
    const waits: number[] = [];
    let calls = 0;
    const opened = {} as OpenDatabase;
    const result = await openWithRetry(
      target,
      async () => {
        if (++calls < 4) throw new Error('connect ECONNREFUSED 10.0.0.1:5433\n    at TCPConnectWrap (node:net)');
        return opened;
      },
      60_000,
      { warn: (m) => lines.push(m) },
      async (ms) => void waits.push(ms),
    );
    expect(result).toBe(opened);
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(lines).toEqual([1, 2, 3].map((n) => `Database PostgreSQL at db.example:5433/nk not reachable (attempt ${n}): connect ECONNREFUSED 10.0.0.1:5433; trying again in ${2 ** (n - 1)} s`));
    expect(lines.join('\n')).not.toContain('s3cret');
  });

  it('gives up after the timeout with one line naming where and why', async () => {
    const failing = () => Promise.reject(new Error('password authentication failed for user "netkeel"\n  severity: FATAL'));
    await expect(openWithRetry(target, failing, 0, { warn: () => undefined })).rejects.toThrow(
      /^Could not open the database \(PostgreSQL at db\.example:5433\/nk\) after 1 attempt\(s\): password authentication failed for user "netkeel"$/,
    );
  });
});
