import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const MAIN = join(__dirname, '../../dist/src/main.js');
export const CLI = join(__dirname, '../../dist/src/cli/netkeel.js');

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

/** Starts the built server; resolves once it listens, rejects with its output if it exits first. */
export function serve(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], { env: netkeelEnv({ HOST: '127.0.0.1', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const onData = (b: Buffer) => {
      out += b.toString();
      if (out.includes('listening on')) resolve({ child, output: () => out, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(Object.assign(new Error(`server exited with ${code}: ${out}`), { code, output: out })));
  });
}

/** Its standard error is one `netkeel: ` line, without a stack. */
export function oneLine(r: { stderr: string }): string {
  const lines = r.stderr.trimEnd().split('\n');
  if (lines.length !== 1 || !lines[0].startsWith('netkeel: ')) throw new Error(`expected one netkeel line on stderr, got:\n${r.stderr}`);
  return lines[0];
}
