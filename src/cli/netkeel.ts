import 'reflect-metadata';
import { Logger, LoggerService } from '@nestjs/common';
import { userInfo } from 'node:os';
import { parseArgs, ParseArgsConfig } from 'node:util';
import { APPS, databaseTarget } from '../app.module';
import { loadSettings, Settings, SettingsError } from '../config/settings';
import { loadPlugins, PluginLoadError } from '../core/plugins/loader';
import { compileWasmWithLiftoffOnly } from '../database/pglite/wasm-flags';
import { connectDatabase, describeTarget, reason, StartupError } from '../database/connect';
import type { OpenDatabase } from '../database/data-source.factory';
import { Db } from '../database/db';
import { allMigrations, applyMigrations, migrationStatus, MigrationOwner, ownedMigrations } from '../database/migrations';
import { DataDirLockedError, removeStaleLock } from '../database/pglite/data-dir-lock';
import { checkUserField, insertSuperuser, setPassword, userExists } from '../modules/users/accounts';
import { Cancelled, readStdin, Terminal } from './prompt';

/**
 * `npx netkeel <command>` (bin/netkeel.js): the operator's tool, on the settings and the database the server
 * would use (the same environment, the same opening, PGlite's lock included). Django's
 * management commands are the model: migrate, showmigrations, createsuperuser, changepassword;
 * and unlock, for the embedded database's data directory.
 *
 * Exit status: 0 done; 1 an error, said in one line; 2 a usage or configuration error.
 */

/** An error the operator can act on, said as it is (exit status 1, or 2 for usage). */
class CommandError extends Error {
  constructor(
    message: string,
    readonly status = 1,
  ) {
    super(message);
  }
}

interface Command {
  summary: string;
  usage: string;
  options: ParseArgsConfig['options'];
  positionals?: number;
  run(ctx: Context): Promise<void>;
}

interface Context {
  settings: Settings;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  out: (line: string) => void;
}

const COMMANDS: Record<string, Command> = {
  migrate: {
    summary: 'apply the migrations not yet applied (the server also does at start)',
    usage: 'netkeel migrate',
    options: {},
    async run(ctx) {
      await withDatabase(ctx.settings, async ({ open, where }) => {
        const applied = await applyMigrations(open);
        if (!applied.length) return ctx.out(`No migrations to apply: ${where} is up to date.`);
        for (const name of applied) ctx.out(`  Applied ${name}`);
        ctx.out(`Applied ${applied.length} migration(s) to ${where}.`);
      });
    },
  },
  showmigrations: {
    summary: "list netkeel's and the plugins' migrations: [X] applied, [ ] not yet",
    usage: 'netkeel showmigrations',
    options: {},
    async run(ctx) {
      await withDatabase(ctx.settings, async ({ open, owned }) => {
        for (const group of await migrationStatus(open, owned)) {
          ctx.out(group.owner);
          for (const m of group.migrations) ctx.out(` [${m.applied ? 'X' : ' '}] ${m.name}`);
          if (!group.migrations.length) ctx.out(' (no migrations)');
        }
      });
    },
  },
  createsuperuser: {
    summary: 'create a superuser: asks on a terminal; --no-input takes SUPERUSER_NAME, SUPERUSER_EMAIL, SUPERUSER_PASSWORD',
    usage: 'netkeel createsuperuser [--username NAME] [--email ADDRESS] [--no-input] [--password-stdin]',
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      'no-input': { type: 'boolean' },
      noinput: { type: 'boolean' },
      'password-stdin': { type: 'boolean' },
    },
    async run(ctx) {
      const flags = { username: ctx.values.username as string | undefined, email: ctx.values.email as string | undefined };
      const stdinPassword = !!ctx.values['password-stdin'];
      // As Django's: the environment only without questions; --password-stdin takes standard input, so asks nothing either.
      const term = ctx.values['no-input'] || ctx.values.noinput || stdinPassword ? undefined : terminal('--no-input (with SUPERUSER_NAME and SUPERUSER_PASSWORD), or --username and --password-stdin');
      // What is given is checked before the database opens; what is asked, as it is typed.
      const given = (name: 'username' | 'email' | 'password', value: string | undefined) => (value ? valid(name, value) : value);
      let password = given('password', stdinPassword ? await passwordFromStdin() : term ? undefined : ctx.settings.SUPERUSER_PASSWORD);
      let username = given('username', flags.username ?? (term ? undefined : ctx.settings.SUPERUSER_NAME));
      let email = given('email', flags.email ?? (term ? undefined : ctx.settings.SUPERUSER_EMAIL));
      if (!term && !username) throw new CommandError('--username (or SUPERUSER_NAME) is required with --no-input', 2);
      await withDatabase(ctx.settings, async ({ open, db, owned }) => {
        await requireMigrated(open, owned);
        if (term) {
          const osUser = safeOsUser();
          const fallback = osUser && 'value' in checkUserField('username', osUser) ? osUser : undefined;
          username = await askUntil(term, username, async () => {
            const checked = checkUserField('username', (await term.ask(fallback ? `Username (leave blank to use '${fallback}'): ` : 'Username: ')) || fallback || '');
            if ('value' in checked && (await userExists(db, checked.value))) return { problem: 'That username is already taken.' };
            return checked;
          });
          email = await askUntil(term, email, async () => checkUserField('email', await term.ask('Email address: ')));
          password = await askPassword(term);
          term.close();
        }
        const name = username!;
        await db.transaction(async (tx) => {
          if (await userExists(tx, name)) throw new CommandError(`the username ${JSON.stringify(name)} is already taken.`);
          await insertSuperuser(tx, name, password ?? '', email ?? '');
        });
        ctx.out(password ? 'Superuser created successfully.' : `Superuser created successfully, without a password: it cannot log in until \`netkeel changepassword ${name}\`.`);
      });
    },
  },
  changepassword: {
    summary: "set a user's password: asks twice on a terminal, or --password-stdin",
    usage: 'netkeel changepassword [USERNAME] [--password-stdin]   (USERNAME: the current system user if omitted)',
    options: { 'password-stdin': { type: 'boolean' } },
    positionals: 1,
    async run(ctx) {
      const username = ctx.positionals[0] ?? safeOsUser();
      const term = ctx.values['password-stdin'] ? undefined : terminal('--password-stdin');
      const piped = term ? undefined : valid('password', await passwordFromStdin());
      await withDatabase(ctx.settings, async ({ open, db, owned }) => {
        await requireMigrated(open, owned);
        if (!(await userExists(db, username))) throw new CommandError(`user ${JSON.stringify(username)} does not exist.`);
        let password = piped;
        if (term) {
          term.say(`Changing password for user '${username}'`);
          password = await askPassword(term, 3, username);
          term.close();
        }
        await setPassword(db, username, password!);
        ctx.out(`Password changed successfully for user '${username}'.`);
      });
    },
  },
  unlock: {
    summary: "remove the embedded database's data-directory lock left by a process that is gone (refused while it runs)",
    usage: 'netkeel unlock',
    options: {},
    async run(ctx) {
      if (ctx.settings.DATABASE_URL || ctx.settings.DATA_DIR.startsWith('memory://')) {
        throw new CommandError(`only the embedded database's data directory has a lock (${ctx.settings.DATABASE_URL ? 'DATABASE_URL is set' : 'DATA_DIR is in memory'}).`);
      }
      ctx.out(await removeStaleLock(ctx.settings.DATA_DIR));
    },
  },
};

/** The database of the settings, opened as the server opens it (waited for, locked), with netkeel's and the plugins' migrations. */
async function withDatabase(settings: Settings, fn: (d: { open: OpenDatabase; db: Db; owned: MigrationOwner[]; where: string }) => Promise<void>): Promise<void> {
  const owned = ownedMigrations(loadPlugins(settings.PLUGINS, APPS.map((a) => a.label)));
  const target = databaseTarget(settings);
  const { open } = await connectDatabase(target, allMigrations(owned), { warn: (m) => process.stderr.write(`netkeel: ${m}\n`) });
  try {
    await fn({ open, db: new Db(open.dataSource, open.dialect), owned, where: describeTarget(target) });
  } finally {
    await open.close();
  }
}

/** Users are written only to a database whose migrations are all applied, as the server's would be. */
async function requireMigrated(open: OpenDatabase, owned: MigrationOwner[]): Promise<void> {
  const pending = (await migrationStatus(open, owned)).flatMap((g) => g.migrations.filter((m) => !m.applied));
  if (pending.length) throw new CommandError(`the database has ${pending.length} migration(s) not applied yet: run \`netkeel migrate\` (or start the server) first.`);
}

function terminal(instead: string): Terminal {
  if (!process.stdin.isTTY) throw new CommandError(`standard input is not a terminal: use ${instead}.`);
  return new Terminal();
}

async function passwordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new CommandError('--password-stdin: standard input is a terminal; pipe the password in (echo "$PASSWORD" | netkeel ...)', 2);
  return readStdin();
}

/** Asks until the answer passes (the problem said each time), unless a value was given. */
async function askUntil(term: Terminal, given: string | undefined, ask: () => Promise<{ value: string } | { problem: string }>): Promise<string> {
  if (given !== undefined) return given;
  for (;;) {
    const r = await ask();
    if ('value' in r) return r.value;
    term.say(`Error: ${r.problem}`);
  }
}

/** A new password typed twice, hidden; at most `tries` attempts when given (then the change is abandoned). */
async function askPassword(term: Terminal, tries = Infinity, username?: string): Promise<string> {
  for (let i = 0; i < tries; i++) {
    const first = await term.ask('Password: ', true);
    const again = await term.ask('Password (again): ', true);
    const checked = first !== again ? { problem: "Your passwords didn't match." } : !first ? { problem: "Blank passwords aren't allowed." } : checkUserField('password', first);
    if ('value' in checked) return first;
    term.say(`Error: ${checked.problem}`);
  }
  throw new CommandError(`aborting the password change for user '${username}' after ${tries} attempts.`);
}

function valid(name: 'username' | 'email' | 'password', value: string): string {
  const r = checkUserField(name, value);
  if ('problem' in r) throw new CommandError(`${name}: ${r.problem}`);
  return r.value;
}

function safeOsUser(): string {
  try {
    return userInfo().username;
  } catch {
    return '';
  }
}

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    'usage: netkeel <command> [options]   (npx netkeel ... in the installation; settings from the environment, as the server)',
    '',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    "netkeel <command> --help: the command's options",
  ].join('\n');
}

/** Nest's logger in this tool: warnings and errors as `netkeel: ` lines on stderr, nothing else. */
const quietLogger: LoggerService = {
  log: () => undefined,
  warn: (m: unknown) => void process.stderr.write(`netkeel: ${String(m)}\n`),
  error: (m: unknown) => void process.stderr.write(`netkeel: ${String(m)}\n`),
};

export async function main(argv: string[]): Promise<number> {
  Logger.overrideLogger(quietLogger);
  const out = (line: string) => void process.stdout.write(`${line}\n`);
  const fail = (message: string, status: number) => {
    process.stderr.write(`netkeel: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
    return status;
  };
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    (name ? out : (l: string) => process.stderr.write(`${l}\n`))(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) return fail(`unknown command ${JSON.stringify(name)}; the commands are ${Object.keys(COMMANDS).join(', ')}`, 2);
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: !!command.positionals, strict: true });
    if (parsed.positionals.length > (command.positionals ?? 0)) throw new Error(`unexpected argument ${JSON.stringify(parsed.positionals[command.positionals ?? 0])}`);
  } catch (e) {
    return fail(`${name}: ${(e as Error).message.split('\n')[0]} (usage: ${command.usage})`, 2);
  }
  if (parsed.values.help) {
    out(`usage: ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  let settings: Settings;
  try {
    settings = loadSettings(process.env);
  } catch (e) {
    if (e instanceof SettingsError) return fail(e.message, 2);
    throw e;
  }
  try {
    await command.run({ settings, values: parsed.values as Context['values'], positionals: parsed.positionals, out });
    return 0;
  } catch (e) {
    if (e instanceof Cancelled) return fail('cancelled.', 1);
    if (e instanceof CommandError) return fail(`${name}: ${e.message}`, e.status);
    if (e instanceof SettingsError) return fail(e.message, 2);
    if (e instanceof DataDirLockedError || e instanceof StartupError || e instanceof PluginLoadError) return fail(`${name}: ${e.message}`, 1);
    return fail(`${name}: ${reason(e)}`, 1);
  }
}

/** Runs a command and exits with its status (bin/netkeel.js, `npx netkeel`). */
export function run(argv: string[]): void {
  compileWasmWithLiftoffOnly();
  main(argv).then(
    (status) => process.exit(status),
    (e) => {
      process.stderr.write(`netkeel: ${reason(e)}\n`);
      process.exit(1);
    },
  );
}

if (require.main === module) run(process.argv.slice(2));
