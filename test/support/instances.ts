import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The built server (`npm run typecheck` or `npm run build` makes it). */
export const MAIN = join(__dirname, '../../dist/src/main.js');

/** A port nothing listens on now, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Instance {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** What it printed so far. */
  output(): string;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts the built server as a process of its own, with only the settings given (nothing of this
 * process's environment but PATH), on a free loopback port; resolves once it listens, rejects
 * with its output if it exits first or does not listen within `timeoutMs` (then it is killed).
 */
export async function startInstance(env: Record<string, string>, timeoutMs = 90_000): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const late = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`netkeel did not listen within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (b: Buffer) => {
      out += b.toString();
      if (out.includes('listening on')) {
        clearTimeout(late);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(late);
      reject(new Error(`netkeel exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
