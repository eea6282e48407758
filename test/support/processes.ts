import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/core/testing/repo-root';
import { serverNodeOptions } from '../../src/core/testing/server-command';

/** The built server and command-line tool (`npm run typecheck` or `npm run build` makes them). */
export const MAIN = join(REPO_ROOT, 'dist/src/main.js');
export const CLI = join(REPO_ROOT, 'dist/src/cli/netkeel.js');

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

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a netkeel process of a test: this one's without netkeel's own settings
 * (the suite's shell may have some), plus the given ones.
 */
export function netkeelEnv(env: Record<string, string>): Record<string, string> {
  const own = /^(DATABASE_URL|DATA_DIR|SUPERUSER_\w+|SECRET_KEY|PLUGINS|PORT|HOST)$/;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !own.test(k))) as Record<string, string>;
  return { ...clean, LOG_LEVEL: 'warn', ...env };
}

/** Runs the built command-line tool to its end; `input` is its standard input (none: /dev/null, not a terminal). */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: netkeelEnv(env), stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    if (input !== undefined) child.stdin!.end(input);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs the built command-line tool on a terminal (a pseudo-terminal of `script`, util-linux),
 * answering each prompt when it appears (null: only waits for it; nothing is typed ahead, as
 * readline would drop it); gives the whole screen as the operator saw it.
 */
export function runCliOnTerminal(args: string[], env: Record<string, string>, answers: [prompt: string, answer: string | null][]): Promise<{ code: number | null; screen: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return new Promise((resolve) => {
    const child = spawn('script', ['-qefc', [process.execPath, CLI, ...args].map(quote).join(' '), '/dev/null'], { env: netkeelEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let seen = 0;
    let next = 0;
    const onData = (b: Buffer) => {
      screen += b.toString();
      while (next < answers.length) {
        const at = screen.indexOf(answers[next][0], seen);
        if (at < 0) break;
        seen = at + answers[next][0].length;
        if (answers[next][1] !== null) child.stdin!.write(`${answers[next][1]}\r`);
        next++;
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

/** A process of the built server, with its output so far. */
export interface ServerProcess {
  child: ChildProcess;
  output(): string;
  /** Its exit code, once it exits. */
  exited: Promise<number | null>;
  /** Resolves once it prints that it listens; rejects with its output if it exits first. */
  listening: Promise<void>;
}

/** Starts the built server with exactly this environment. */
export function spawnServer(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, [...serverNodeOptions(), MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const listening = new Promise<void>((resolve, reject) => {
    const onData = (b: Buffer) => {
      out += b.toString();
      if (out.includes('listening on')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(Object.assign(new Error(`server exited with ${code}: ${out}`), { code, output: out })));
  });
  listening.catch(() => undefined); // a caller that only awaits the exit
  return { child, output: () => out, exited, listening };
}

/** Starts the built server (this process's environment without netkeel's own settings, plus `env`); resolves once it listens. */
export async function serve(env: Record<string, string>): Promise<ServerProcess> {
  const server = spawnServer(netkeelEnv({ HOST: '127.0.0.1', ...env }));
  await server.listening;
  return server;
}

/** A netkeel instance of its own, on a free loopback port. */
export interface Instance {
  /** `http://127.0.0.1:<port>` */
  url: string;
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
  const server = spawnServer({ PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env });
  let late: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      server.listening,
      new Promise((_, reject) => {
        late = setTimeout(() => {
          server.child.kill('SIGKILL');
          reject(new Error(`netkeel did not listen within ${timeoutMs} ms:\n${server.output()}`));
        }, timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(late);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: server.output,
    async stop() {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
      await server.exited;
    },
  };
}

/** Its standard error is one `netkeel: ` line, without a stack. */
export function oneLine(r: { stderr: string }): string {
  const lines = r.stderr.trimEnd().split('\n');
  if (lines.length !== 1 || !lines[0].startsWith('netkeel: ')) throw new Error(`expected one netkeel line on stderr, got:\n${r.stderr}`);
  return lines[0];
}
