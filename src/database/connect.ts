import { DatabaseTarget, openDatabase, OpenDatabase } from './data-source.factory';
import type { MigrationSets } from './migrations';

/** A failure to start whose message says all an operator needs: logged as one line, without a stack. */
export class StartupError extends Error {}

export interface ConnectLog {
  warn(message: string): void;
}

/** Where a target lives, for messages: kind, host, port and database, never the password. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.kind === 'pglite') return `embedded PGlite in ${target.dataDir?.startsWith('memory://') ? 'memory' : (target.dataDir ?? './data')}`;
  const kind = target.kind === 'mysql' ? 'MySQL/MariaDB' : 'PostgreSQL';
  try {
    const u = new URL(target.url ?? '');
    return `${kind} at ${u.hostname || 'localhost'}:${u.port || (target.kind === 'mysql' ? '3306' : '5432')}${u.pathname || '/'}`;
  } catch {
    return `${kind} (the URL does not parse)`;
  }
}

/** The first line of a driver error: its reason, without the protocol fields and stack that follow. */
export function reason(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const text = String(e?.message ?? err).split('\n')[0].trim();
  return text || String(e?.code ?? 'unknown error');
}

/**
 * Opens a database server that may not be up yet (a container starting beside netkeel): tries
 * again with backoff (1 s doubling to 10 s) until `timeoutMs` has passed, with one line per
 * failed attempt, then fails with one line naming where and why. The embedded database is
 * opened once: there is nothing to wait for.
 */
export async function openWithRetry(
  target: DatabaseTarget,
  open: () => Promise<OpenDatabase>,
  timeoutMs: number,
  log: ConnectLog,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<OpenDatabase> {
  const where = describeTarget(target);
  const deadline = Date.now() + timeoutMs;
  let delay = 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await open();
    } catch (err) {
      const left = deadline - Date.now();
      if (target.kind === 'pglite' || left <= 0) {
        throw new StartupError(`Could not open the database (${where}) after ${attempt} attempt(s): ${reason(err)}`, { cause: err });
      }
      const wait = Math.min(delay, left);
      log.warn(`Database ${where} not reachable (attempt ${attempt}): ${reason(err)}; trying again in ${Math.ceil(wait / 1000)} s`);
      await sleep(wait);
      delay = Math.min(delay * 2, 10_000);
    }
  }
}

/**
 * Opens the configured database as the server and the command-line tool both do: a server that
 * is not up yet tried again for `target.connectTimeoutMs`; gives its version as one line.
 */
export async function connectDatabase(target: DatabaseTarget, migrations: MigrationSets, log: ConnectLog): Promise<{ open: OpenDatabase; version: string }> {
  const open = await openWithRetry(target, () => openDatabase(target, { migrations }), target.connectTimeoutMs ?? 0, log);
  try {
    const [{ v }] = await open.dataSource.query('SELECT VERSION() AS v');
    return { open, version: String(v).split(' on ')[0].split(',')[0] };
  } catch (err) {
    await open.close();
    throw err;
  }
}
