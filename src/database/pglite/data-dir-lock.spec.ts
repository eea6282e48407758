import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLockedError, judgeLock, LockHolder, lockDataDir, removeStaleLock, startTime, thisProcess } from './data-dir-lock';

/**
 * The data directory's lock: one process per directory, a holder that is gone taken over, also
 * from another container (another hostname) on the same volume, and, on another machine, once
 * its heartbeat stops.
 */
describe('data directory lock', () => {
  const dirs: string[] = [];
  const servers: Server[] = [];
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), 'nk-lock-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    servers.forEach((s) => s.close());
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });
  const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'netkeel.lock'), 'utf8')) as LockHolder;
  const writeLock = (dir: string, holder: LockHolder | string, ageSeconds = 0) => {
    const file = join(dir, 'netkeel.lock');
    writeFileSync(file, typeof holder === 'string' ? holder : JSON.stringify(holder));
    const t = new Date(Date.now() - ageSeconds * 1000);
    utimesSync(file, t, t);
  };
  /** A socket file whose process was killed: what a crashed holder leaves. */
  const deadSocket = (dir: string, name = 'netkeel-dead.sock') => {
    const path = join(dir, name);
    spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(existsSync(path)).toBe(true);
    return name;
  };
  const liveSocket = async (dir: string, name = 'netkeel-live.sock') => {
    const s = createServer((c) => c.destroy());
    servers.push(s);
    await new Promise<void>((r) => s.listen(join(dir, name), r));
    return name;
  };
  const me = thisProcess();
  /** Another container of this machine: same kernel, another hostname and pid namespace. */
  const otherContainer = (socket?: string): LockHolder => ({ host: 'old-container', pid: 1, boot: me.boot, pidns: 'pid:[1]', start: '42', socket });

  it('records its holder with a socket that answers, and goes on release', async () => {
    const dir = fresh();
    const release = await lockDataDir(dir);
    const held = lockOf(dir);
    expect(held).toMatchObject({ host: hostname(), pid: process.pid });
    expect(existsSync(join(dir, held.socket!))).toBe(true);
    expect(await judgeLock(dir)).toMatchObject({ state: 'alive', how: 'it answers on its socket' });
    await expect(lockDataDir(dir)).rejects.toThrow(
      new DataDirLockedError(`The data directory ${dir} is in use by another netkeel process (pid ${process.pid} on this host; it answers on its socket): stop it first.`),
    );
    release();
    expect(readdirSync(dir)).toEqual([]);
    expect(await judgeLock(dir)).toEqual({ state: 'free' });
  });

  it('takes over at once a lock left by a crashed container of this machine (another hostname, same volume)', async () => {
    const dir = fresh();
    const socket = deadSocket(dir);
    writeLock(dir, otherContainer(socket));
    const started = Date.now();
    const release = await lockDataDir(dir);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(lockOf(dir).pid).toBe(process.pid);
    expect(existsSync(join(dir, socket))).toBe(false);
    release();
  });

  it('refuses a live holder in another container of this machine, whatever its hostname', async () => {
    const dir = fresh();
    writeLock(dir, otherContainer(await liveSocket(dir)), 3600);
    await expect(lockDataDir(dir)).rejects.toThrow('in use by another netkeel process (pid 1 on old-container; it answers on its socket): stop it first.');
    await expect(removeStaleLock(dir)).rejects.toThrow(DataDirLockedError);
    expect(existsSync(join(dir, 'netkeel.lock'))).toBe(true);
  });

  it('without a socket, asks the pid in the same pid namespace only, and knows a reused pid', async () => {
    if (!me.pidns) return; // not Linux: the hostname stands for the namespace
    const dir = fresh();
    const parent = { ...me, pid: process.ppid, start: startTime(process.ppid) };
    writeLock(dir, parent);
    await expect(lockDataDir(dir)).rejects.toThrow(`(pid ${process.ppid} on this host; its process runs)`);
    writeLock(dir, { ...parent, start: 'another-start' }); // the pid now names another process
    expect(await judgeLock(dir)).toMatchObject({ state: 'stale', how: 'its process is gone' });
    writeLock(dir, `${hostname()} 2147483646`); // an earlier version's lock of a dead process
    (await lockDataDir(dir))();
    // Another container's pid says nothing here: its heartbeat does.
    writeLock(dir, { ...otherContainer(), pid: process.ppid }, 3600);
    expect(await judgeLock(dir)).toMatchObject({ state: 'stale', how: 'its heartbeat stopped 3600 s ago' });
  });

  describe('on another machine (a network volume): the heartbeat', () => {
    const timing = { heartbeatMs: 50, staleMs: 800 };
    const machine = (name: string): LockHolder => ({ host: `machine-${name}`, pid: 4242, boot: `boot-${name}` });

    it("refuses a holder whose heartbeat moves while it is watched", async () => {
      const dir = fresh();
      const release = await lockDataDir(dir, { ...timing, self: machine('a') });
      const lines: string[] = [];
      await expect(lockDataDir(dir, { ...timing, self: machine('b'), log: (m) => lines.push(m) })).rejects.toThrow(
        'in use by another netkeel process (pid 4242 on machine-a; its heartbeat moved): stop it first.',
      );
      expect(lines).toEqual([expect.stringMatching(/is locked by pid 4242 on machine-a, last heartbeat 0 s ago: watching it up to 1 s/)]);
      release();
    });

    it('takes over a lock whose heartbeat stopped: at once when older than the limit, else once it is', async () => {
      const dir = fresh();
      writeLock(dir, machine('a'), 3600);
      (await lockDataDir(dir, { ...timing, self: machine('b') }))();
      writeLock(dir, machine('a'));
      const started = Date.now();
      const release = await lockDataDir(dir, { ...timing, self: machine('b') });
      expect(Date.now() - started).toBeGreaterThanOrEqual(timing.staleMs - 100);
      expect(lockOf(dir).host).toBe('machine-b');
      release();
    });

    it('lets unlock remove a stale lock only', async () => {
      const dir = fresh();
      expect(await removeStaleLock(dir, timing)).toBe(`No lock in ${dir}: nothing to do.`);
      writeLock(dir, machine('a'));
      await expect(removeStaleLock(dir, timing)).rejects.toThrow(/is held by pid 4242 on machine-a, whose heartbeat is 0 s old: it is probably running there/);
      writeLock(dir, machine('a'), 5);
      expect(await removeStaleLock(dir, timing)).toBe('Removed the stale lock of pid 4242 on machine-a (its heartbeat stopped 5 s ago).');
      expect(existsSync(join(dir, 'netkeel.lock'))).toBe(false);
    });
  });

  it('lets exactly one of two starters take over one stale lock', async () => {
    const dir = fresh();
    writeLock(dir, otherContainer(deadSocket(dir)));
    const results = await Promise.allSettled([lockDataDir(dir), lockDataDir(dir), lockDataDir(dir)]);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DataDirLockedError);
    (won[0] as PromiseFulfilledResult<() => void>).value();
  });
});
