import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, readlinkSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, Server } from 'node:net';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

export class DataDirLockedError extends Error {}

export const LOCK_FILE = 'netkeel.lock';

/**
 * Who holds a data directory, as its lock file says (JSON). `boot` (the kernel's boot id),
 * `pidns` (the pid namespace) and `start` (the process's start time) are Linux's, absent
 * elsewhere; `socket` is the holder's Unix socket, a file name in the data directory. A lock
 * of an earlier version is `host pid` as text.
 */
export interface LockHolder {
  host: string;
  pid: number;
  boot?: string;
  pidns?: string;
  start?: string;
  socket?: string;
}

/** What is known of an existing lock: its holder (null if unreadable), its text and when its holder last touched it. */
interface SeenLock {
  holder: LockHolder | null;
  text: string;
  mtimeMs: number;
}

export type LockVerdict =
  | { state: 'free' }
  | { state: 'alive'; holder: LockHolder; how: string }
  | { state: 'stale'; holder: LockHolder | null; how: string; seen: SeenLock }
  /** On another machine: only its heartbeat says whether it lives; this old. */
  | { state: 'remote'; holder: LockHolder | null; ageMs: number; seen: SeenLock };

export interface LockTiming {
  /** How often the holder touches its lock file (its heartbeat). */
  heartbeatMs: number;
  /** A lock whose heartbeat is older than this is stale, where nothing better tells. */
  staleMs: number;
}

export const LOCK_TIMING: LockTiming = { heartbeatMs: 5_000, staleMs: 60_000 };

export interface LockOptions extends Partial<LockTiming> {
  /** Told when a start waits to see whether a remote holder's heartbeat moves. */
  log?: (message: string) => void;
  /** This process, as it records itself (tests stand in for another machine). */
  self?: LockHolder;
}

/**
 * Takes an exclusive lock on the embedded database's data directory, so that a second netkeel
 * process cannot open (and corrupt) the same files: `netkeel.lock`, created with O_EXCL, names
 * the holder. Whether a holder still lives is asked in the most certain way available:
 *
 * 1. On the same kernel (same boot id: this machine, any container of it), the holder listens on
 *    a Unix socket in the data directory: the kernel accepts a connection to it for as long as
 *    the process exists, even while its event loop is busy or the process is stopped, and
 *    refuses it once the process is gone. A container recreated after a crash (new hostname,
 *    same volume) therefore takes over at once, and a second container on the same volume is
 *    refused, whatever their hostnames.
 * 2. Where the filesystem has no sockets, the pid, in the same pid namespace only (a pid means
 *    nothing in another container), with the process's start time against a reused pid.
 * 3. On another machine (a network volume), a heartbeat: the holder touches the file every
 *    `heartbeatMs`; one untouched for `staleMs` is stale. A start that finds a recent one
 *    watches it until it either moves (refused) or goes stale (taken over).
 *
 * Taking over is serialized by a second O_EXCL file, so two starters never both take over one
 * stale lock. The holder checks at each heartbeat that the lock is still its own and stops the
 * process at once if it is not. The lock goes when the database closes or the process exits.
 */
export async function lockDataDir(dir: string, opts: LockOptions = {}): Promise<() => void> {
  const timing = { ...LOCK_TIMING, ...opts };
  const path = resolve(dir);
  mkdirSync(path, { recursive: true });
  const file = join(path, LOCK_FILE);
  for (let attempt = 0; attempt < 5; attempt++) {
    const held = await tryCreate(path, file, opts.self ?? thisProcess(), timing);
    if (held) return held;
    let verdict = await judgeLock(path, timing, opts.self);
    if (verdict.state === 'free') continue;
    if (verdict.state === 'remote') verdict = await watch(path, verdict, timing, opts);
    if (verdict.state === 'alive') throw new DataDirLockedError(`The data directory ${path} is in use by another netkeel process (${describeHolder(verdict.holder, opts.self)}; ${verdict.how}): stop it first.`);
    if (verdict.state === 'stale') await takeOver(file, verdict.seen);
  }
  throw new DataDirLockedError(`Could not lock the data directory ${path}: other processes keep taking it.`);
}

/** Whether the data directory's lock is free, held by a live process, stale, or held on another machine (then: how old its heartbeat is). */
export async function judgeLock(dir: string, timing: LockTiming = LOCK_TIMING, self: LockHolder = thisProcess()): Promise<LockVerdict> {
  const path = resolve(dir);
  const seen = readLock(join(path, LOCK_FILE));
  if (!seen) return { state: 'free' };
  const h = seen.holder;
  const ageMs = Date.now() - seen.mtimeMs;
  // Not readable as a holder (written by hand, or another version's): judged by its age alone.
  if (!h) return ageMs >= timing.staleMs ? stale(seen, `its lock file names no holder and is ${Math.round(ageMs / 1000)} s old`) : { state: 'remote', holder: null, ageMs, seen };
  const sameKernel = h.boot !== undefined && self.boot !== undefined ? h.boot === self.boot : h.host === self.host;
  if (sameKernel && h.socket) {
    const answer = await knock(join(path, h.socket));
    if (answer === 'answers') return { state: 'alive', holder: h, how: 'it answers on its socket' };
    if (answer === 'gone') return stale(seen, 'nothing answers on its socket');
  }
  const samePids = h.pidns !== undefined && self.pidns !== undefined ? sameKernel && h.pidns === self.pidns : h.host === self.host;
  if (samePids) {
    if (pidAlive(h, self)) return { state: 'alive', holder: h, how: 'its process runs' };
    return stale(seen, 'its process is gone');
  }
  if (ageMs >= timing.staleMs) return stale(seen, `its heartbeat stopped ${Math.round(ageMs / 1000)} s ago`);
  return { state: 'remote', holder: h, ageMs, seen };
}

/**
 * Removes the data directory's lock if its holder is gone (`netkeel unlock`); refuses with a
 * DataDirLockedError while the holder lives or, on another machine, while its heartbeat is recent.
 */
export async function removeStaleLock(dir: string, timing: LockTiming = LOCK_TIMING): Promise<string> {
  const path = resolve(dir);
  const verdict = await judgeLock(path, timing);
  if (verdict.state === 'free') return `No lock in ${path}: nothing to do.`;
  if (verdict.state === 'alive') throw new DataDirLockedError(`The data directory ${path} is in use (${describeHolder(verdict.holder)}; ${verdict.how}): stop that process first.`);
  if (verdict.state === 'remote') {
    throw new DataDirLockedError(
      `The data directory ${path} is held by ${describeHolder(verdict.holder)}, whose heartbeat is ${Math.round(verdict.ageMs / 1000)} s old: ` +
        `it is probably running there; stop it first (a lock whose heartbeat stops is stale after ${timing.staleMs / 1000} s).`,
    );
  }
  await takeOver(join(path, LOCK_FILE), verdict.seen);
  return `Removed the stale lock of ${verdict.holder ? describeHolder(verdict.holder) : 'an unknown process'} (${verdict.how}).`;
}

/** This process as it records itself in a lock. */
export function thisProcess(): LockHolder {
  return { host: hostname(), pid: process.pid, boot: readProc('/proc/sys/kernel/random/boot_id'), pidns: pidNamespace(), start: startTime(process.pid) };
}

function describeHolder(h: LockHolder | null, self: LockHolder = thisProcess()): string {
  if (!h) return 'an unknown process';
  return `pid ${h.pid} on ${h.host === self.host ? 'this host' : h.host}`;
}

const stale = (seen: SeenLock, how: string): LockVerdict => ({ state: 'stale', holder: seen.holder, how, seen });

/** Creates the lock if there is none; null if there is one. */
async function tryCreate(path: string, file: string, self: LockHolder, timing: LockTiming): Promise<(() => void) | null> {
  const socketName = `netkeel-${randomBytes(4).toString('hex')}.sock`;
  const server = await listen(join(path, socketName));
  const me = JSON.stringify({ ...self, ...(server ? { socket: socketName } : {}) });
  if (!createExclusive(file, me)) {
    server?.close();
    return null;
  }
  const beat = setInterval(() => {
    try {
      const now = readLock(file);
      // Removed by hand: ours again, unless someone else's lock took its place meanwhile.
      if (now ? now.text !== me : !createExclusive(file, me)) {
        process.stderr.write(`netkeel: the lock of the data directory ${path} is no longer this process's (${readLock(file)?.text ?? 'removed'}): stopping at once, so that two processes never write one database.\n`);
        process.exit(1);
      }
      const t = new Date();
      utimesSync(file, t, t);
    } catch {
      /* the directory cannot be read or written now: checked again at the next beat */
    }
  }, timing.heartbeatMs);
  beat.unref();
  const release = () => {
    clearInterval(beat);
    process.removeListener('exit', release);
    server?.close();
    try {
      if (readLock(file)?.text === me) unlinkSync(file);
    } catch {
      /* already gone */
    }
  };
  // A start that fails after this (migrations, a port in use) exits without closing the database.
  process.on('exit', release);
  return release;
}

/**
 * Creates a file with its whole content if it does not exist (false if it does): written beside
 * it, then hard-linked into place, so that nobody ever reads it half-written; with O_EXCL where
 * the filesystem has no hard links.
 */
function createExclusive(file: string, text: string): boolean {
  const tmp = `${file}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
    linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    try {
      writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  } finally {
    tryUnlink(tmp);
  }
}

/** Listens on a Unix socket (null where the filesystem cannot hold one or the path is too long for one). */
function listen(socketPath: string): Promise<Server | null> {
  if (process.platform === 'win32' || Buffer.byteLength(socketPath) > 100) return Promise.resolve(null);
  return new Promise((resolveListen) => {
    const server = createServer((s) => s.destroy());
    // Before listening: no socket here; after: a failed accept, nothing to do about it.
    server.on('error', () => resolveListen(null));
    server.listen(socketPath, () => {
      server.unref();
      resolveListen(server);
    });
  });
}

/** Whether a process listens on a socket: it answers, it is gone, or this cannot tell. */
function knock(socketPath: string): Promise<'answers' | 'gone' | 'unknown'> {
  return new Promise((resolveKnock) => {
    const c = createConnection(socketPath);
    const timer = setTimeout(() => (c.destroy(), resolveKnock('unknown')), 2000);
    c.once('connect', () => (clearTimeout(timer), c.destroy(), resolveKnock('answers')));
    c.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // A socket file nobody listens on is refused; a missing one says nothing (removed by hand?).
      resolveKnock(e.code === 'ECONNREFUSED' ? 'gone' : 'unknown');
    });
  });
}

/** Watches a remote holder's heartbeat until it moves (alive) or is older than staleMs (stale). */
async function watch(path: string, v: Extract<LockVerdict, { state: 'remote' }>, timing: LockTiming, opts: LockOptions): Promise<LockVerdict> {
  // Bounded by our own clock too, should the holder's run ahead.
  const waitMs = Math.min(timing.staleMs, timing.staleMs - v.ageMs) + 100;
  opts.log?.(`The data directory ${path} is locked by ${describeHolder(v.holder, opts.self)}, last heartbeat ${Math.round(v.ageMs / 1000)} s ago: watching it up to ${Math.ceil(waitMs / 1000)} s to see whether it still runs.`);
  const until = Date.now() + waitMs;
  const file = join(path, LOCK_FILE);
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, Math.min(250, timing.heartbeatMs / 2)));
    const now = readLock(file);
    if (!now) return { state: 'free' };
    if (now.text !== v.seen.text || now.mtimeMs !== v.seen.mtimeMs) {
      return v.holder && now.text === v.seen.text ? { state: 'alive', holder: v.holder, how: 'its heartbeat moved' } : { state: 'free' };
    }
  }
  return stale(v.seen, `its heartbeat stopped ${Math.round((Date.now() - v.seen.mtimeMs) / 1000)} s ago`);
}

/**
 * Removes a stale lock, exactly the one judged stale: under a second O_EXCL file, so that of two
 * starters taking over at once one removes the stale lock and the other then finds the new one.
 */
async function takeOver(file: string, seen: SeenLock): Promise<void> {
  const guard = `${file}.takeover`;
  let fd: number | undefined;
  try {
    fd = openSync(guard, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another starter is taking over (it takes milliseconds); a guard left by a crash goes after 10 s.
    if (Date.now() - (safeMtime(guard) ?? Date.now()) > 10_000) tryUnlink(guard);
    await new Promise((r) => setTimeout(r, 100));
    return;
  }
  try {
    const now = readLock(file);
    if (now && now.text === seen.text && now.mtimeMs === seen.mtimeMs) {
      unlinkSync(file);
      if (seen.holder?.socket && !seen.holder.socket.includes('/')) tryUnlink(join(file, '..', seen.holder.socket));
    }
  } finally {
    closeSync(fd);
    tryUnlink(guard);
  }
}

function readLock(file: string): SeenLock | null {
  try {
    const text = readFileSync(file, 'utf8');
    const mtimeMs = statSync(file).mtimeMs;
    return { holder: parseHolder(text), text, mtimeMs };
  } catch {
    return null;
  }
}

function parseHolder(text: string): LockHolder | null {
  try {
    const h = JSON.parse(text) as LockHolder;
    if (h && typeof h.host === 'string' && Number.isInteger(h.pid)) return h;
  } catch {
    // An earlier version's lock: "host pid".
    const [host, pid] = text.trim().split(' ');
    if (host && /^\d+$/.test(pid ?? '')) return { host, pid: Number(pid) };
  }
  return null;
}

/** Whether the holder's process runs, in this pid namespace: its pid exists and, where known, started when the holder did. */
function pidAlive(h: LockHolder, self: LockHolder): boolean {
  if (!Number.isInteger(h.pid) || h.pid <= 0) return false;
  try {
    process.kill(h.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Without a start time, our own pid is a restarted container's earlier life.
  if (h.start === undefined) return h.pid !== self.pid;
  return startTime(h.pid) === h.start;
}

/** A process's start time since boot (Linux: /proc/<pid>/stat, field 22). */
export function startTime(pid: number): string | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function safeMtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* gone */
  }
}
