import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';

export class DataDirLockedError extends Error {}

/**
 * Takes an exclusive lock on the embedded database's data directory, so that a second netkeel
 * process cannot open (and corrupt) the same files: a lock file created with O_EXCL holding
 * our host and pid. A lock left by a process that no longer runs (killed with SIGKILL, a
 * crashed container) is taken over. Liveness is checked with the pid rather than a
 * refreshed timestamp, because PGlite runs in-process and a long statement blocks the event
 * loop: a timer-refreshed lock would look stale exactly when the database is busiest.
 */
export function lockDataDir(dir: string): () => void {
  const path = resolve(dir);
  mkdirSync(path, { recursive: true });
  const file = `${path}/netkeel.lock`;
  const me = `${hostname()} ${process.pid}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, me);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8') === me) unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(file);
      if (holder && isAlive(holder)) {
        throw new DataDirLockedError(
          `The data directory ${path} is in use by another netkeel process (pid ${holder.pid} on ${holder.host}); ` +
            `stop it first, or remove ${file} if you are sure no process uses the directory.`,
        );
      }
      try {
        unlinkSync(file); // stale: its process is gone
      } catch {
        /* raced with another starter; retry */
      }
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${path}.`);
}

function readHolder(file: string): { host: string; pid: number } | null {
  try {
    const [host, pid] = readFileSync(file, 'utf8').trim().split(' ');
    return { host, pid: Number(pid) };
  } catch {
    return null;
  }
}

function isAlive(h: { host: string; pid: number }): boolean {
  if (h.host !== hostname()) return true; // another machine (shared volume): never steal
  if (!Number.isInteger(h.pid) || h.pid <= 0 || h.pid === process.pid) return false;
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
