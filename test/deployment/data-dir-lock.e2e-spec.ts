import { spawn, spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../../src/core/testing/repo-root';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { testDatabase, TestDatabase } from '../../src/core/testing/harness';
import { thisProcess } from '../../src/database/pglite/data-dir-lock';
import { oneLine, runCli, serve } from '../support/processes';

/**
 * The embedded database's data-directory lock as an operator meets it (issue 22): a container
 * recreated after a crash (another hostname, the same volume) takes over the lock its previous
 * life left; while a server runs, nothing else opens the directory; `netkeel unlock` removes a
 * lock whose holder is gone and refuses one whose holder lives; a start that fails leaves none.
 */
const LOCK_MODULE = join(REPO_ROOT, 'dist/src/database/pglite/data-dir-lock.js');

describe('the data directory lock of the embedded database', () => {
  let database: TestDatabase;
  let dir: string;
  const lockFile = () => join(dir, 'netkeel.lock');
  const lock = () => JSON.parse(readFileSync(lockFile(), 'utf8')) as { host: string; pid: number };
  const port = () =>
    new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
  beforeAll(async () => {
    database = await testDatabase('pglite');
    dir = database.env.DATA_DIR;
  });
  afterAll(() => database?.drop());

  it('is taken over from a crashed container of this machine; refuses everything else while the server runs; unlock removes it after a crash', async () => {
    // What a container killed with the machine's other containers left: its socket, nobody listening.
    const socket = 'netkeel-0badf00d.sock';
    spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(join(dir, socket))}, () => process.kill(process.pid, 'SIGKILL'))`]);
    writeFileSync(lockFile(), JSON.stringify({ host: 'f00dcafe1234', pid: 1, boot: thisProcess().boot, pidns: 'pid:[4026532000]', start: '1234', socket }));

    const server = await serve({ DATA_DIR: dir, PORT: String(await port()) });
    try {
      expect(lock()).toMatchObject({ host: hostname(), pid: server.child.pid });
      expect(existsSync(join(dir, socket))).toBe(false);
      const unlock = await runCli(['unlock'], { DATA_DIR: dir });
      expect(unlock.code).toBe(1);
      expect(oneLine(unlock)).toBe(`netkeel: unlock: The data directory ${dir} is in use (pid ${server.child.pid} on this host; it answers on its socket): stop that process first.`);
      const migrate = await runCli(['migrate'], { DATA_DIR: dir });
      expect(migrate.code).toBe(1);
      expect(oneLine(migrate)).toContain(`is in use by another netkeel process (pid ${server.child.pid} on this host; it answers on its socket): stop it first.`);
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    expect(lock().pid).toBe(server.child.pid);
    const unlock = await runCli(['unlock'], { DATA_DIR: dir });
    expect(unlock).toEqual({ code: 0, stderr: '', stdout: `Removed the stale lock of pid ${server.child.pid} on this host (nothing answers on its socket).\n` });
    expect(existsSync(lockFile())).toBe(false);
    expect((await runCli(['unlock'], { DATA_DIR: dir })).stdout).toBe(`No lock in ${dir}: nothing to do.\n`);
  });

  it('on a volume shared with another machine, is refused while its heartbeat moves and removed once it stopped', async () => {
    writeFileSync(lockFile(), JSON.stringify({ host: 'other-machine', pid: 7, boot: 'another-kernel' }));
    const fresh = await runCli(['unlock'], { DATA_DIR: dir });
    expect(fresh.code).toBe(1);
    expect(oneLine(fresh)).toMatch(
      /^netkeel: unlock: The data directory .* is held by pid 7 on other-machine, whose heartbeat is \d+ s old: it is probably running there; stop it first \(a lock whose heartbeat stops is stale after 60 s\)\.$/,
    );
    const then = new Date(Date.now() - 120_000);
    utimesSync(lockFile(), then, then);
    expect(await runCli(['unlock'], { DATA_DIR: dir })).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Removed the stale lock of pid 7 on other-machine \(its heartbeat stopped 1\d\d s ago\)\.\n$/) });
  });

  it('stops its holder at once when the lock is no longer its own', async () => {
    // The lock as a server holds it (kept running), with a quick heartbeat.
    const holder = spawn(process.execPath, ['-e', `require(${JSON.stringify(LOCK_MODULE)}).lockDataDir(${JSON.stringify(dir)}, { heartbeatMs: 100 }).then(() => console.log('locked')); setInterval(() => undefined, 1000)`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    holder.stdout.on('data', (b: Buffer) => (out += b.toString()));
    holder.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((r) => holder.once('exit', r));
    while (!out.includes('locked')) await new Promise((r) => setTimeout(r, 20));
    writeFileSync(lockFile(), JSON.stringify({ host: 'intruder', pid: 9, boot: 'another-kernel' }));
    expect(await exited).toBe(1);
    expect(out).toContain(`netkeel: the lock of the data directory ${dir} is no longer this process's ({"host":"intruder","pid":9,"boot":"another-kernel"}): stopping at once`);
    expect(lock().host).toBe('intruder');
    const then = new Date(Date.now() - 120_000);
    utimesSync(lockFile(), then, then);
  });

  it('is not left behind by a start that fails', async () => {
    const taken = createServer();
    const busy = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)));
    try {
      // The previous test's lock is stale: this start takes it over, then fails to listen.
      const failed = await serve({ DATA_DIR: dir, PORT: String(busy) }).then(
        () => null,
        (e: { code: number; output: string }) => e,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.output).toMatch(/netkeel: failed to start: listen EADDRINUSE/);
      expect(existsSync(lockFile())).toBe(false);
    } finally {
      taken.close();
    }
  });
});
