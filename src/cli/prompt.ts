import { createInterface, Interface } from 'node:readline';
import { Writable } from 'node:stream';

/** The operator pressed Ctrl-C or closed the input. */
export class Cancelled extends Error {}

/**
 * Questions on the terminal, one line each; a hidden one (a password) echoes nothing of what is
 * typed. One readline interface for the whole dialogue, its echo going through a switch.
 */
export class Terminal {
  private muted = false;
  private readonly rl: Interface;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadStream = process.stdin,
    private readonly output: NodeJS.WriteStream = process.stdout,
  ) {
    const echo = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        if (!this.muted) this.output.write(chunk);
        done();
      },
    });
    this.rl = createInterface({ input, output: echo, terminal: true });
    this.rl.on('close', () => (this.closed = true));
  }

  /** Asks a question; resolves with the line typed (Cancelled on Ctrl-C or end of input). */
  ask(question: string, hidden = false): Promise<string> {
    if (this.closed) return Promise.reject(new Cancelled());
    // A hidden answer's question is written here, past the muted echo (readline would redraw it).
    if (hidden) this.output.write(question);
    this.muted = hidden;
    return new Promise((resolve, reject) => {
      const cancel = () => {
        this.rl.off('SIGINT', cancel);
        this.rl.off('close', cancel);
        this.muted = false;
        this.output.write('\n');
        reject(new Cancelled());
      };
      this.rl.once('SIGINT', cancel);
      this.rl.once('close', cancel);
      this.rl.question(hidden ? '' : question, (answer) => {
        this.rl.off('SIGINT', cancel);
        this.rl.off('close', cancel);
        if (hidden) this.output.write('\n');
        this.muted = false;
        resolve(answer);
      });
    });
  }

  say(line: string): void {
    this.output.write(`${line}\n`);
  }

  close(): void {
    this.rl.close();
  }
}

/** All of standard input (a password piped in), without its final line break. */
export async function readStdin(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of input) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
