import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../../src/core/testing/repo-root';
import { join } from 'node:path';
import { startApp, testDatabase, TestDatabase } from '../../src/core/testing/harness';
import { describeTarget } from '../../src/database/connect';
import { Kind, testDatabases } from '../../src/database/test-servers';
import { ownedMigrations } from '../../src/database/migrations';
import { oneLine, runCli, runCliOnTerminal } from '../support/processes';

/**
 * `npx netkeel ...`, the operator's command-line tool, run as built (dist/) in a process of its
 * own on each database of the run, as an operator would: what it prints, its exit status, and
 * what the server then does with the users it made.
 */
const EXAMPLE = join(REPO_ROOT, 'dist/plugins/example');
const netkeelMigrations = (kind: Kind) => ownedMigrations()[0].migrations[kind === 'mysql' ? 'mysql' : 'postgres'].length;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * The prompts, the answers' checks and the messages are the same code on every database: they are
 * tried on one kind (`everyPrompt`: the PostgreSQL server where the run has one, else the first
 * kind), where every command of the tool also writes; on the others each command writes and reads
 * its database once.
 */
const PROMPTS_ON: Kind = testDatabases().includes('postgres') ? 'postgres' : testDatabases()[0];

describe.each(testDatabases())('netkeel command-line tool [%s]', (kind) => {
  const everyPrompt = kind === PROMPTS_ON;
  let database: TestDatabase;
  let env: Record<string, string>;
  let handedOver = false;
  beforeAll(async () => {
    database = await testDatabase(kind);
    env = database.env;
  });
  afterAll(async () => {
    if (!handedOver) await database?.drop();
  });

  it("lists netkeel's and a plugin's migrations, applies the pending ones, then has none to apply", async () => {
    const withPlugin = { ...env, PLUGINS: EXAMPLE };
    const before = await runCli(['showmigrations'], withPlugin);
    expect(before).toMatchObject({ code: 0, stderr: '' });
    const lines = before.stdout.trimEnd().split('\n');
    const count = netkeelMigrations(kind);
    expect(lines[0]).toBe('netkeel');
    expect(lines.slice(1, 1 + count).every((l) => l.startsWith(' [X] '))).toBe(true);
    expect(lines[1]).toBe(' [X] Foundation1763769600000');
    expect(lines.slice(1 + count)).toEqual(['netkeel-example-maintenance', ' [ ] MaintenanceWindows1795606193511']);

    const where = describeTarget(database.target);
    const migrate = await runCli(['migrate'], withPlugin);
    expect(migrate).toEqual({ code: 0, stderr: '', stdout: `  Applied MaintenanceWindows1795606193511\nApplied 1 migration(s) to ${where}.\n` });
    expect((await runCli(['showmigrations'], withPlugin)).stdout).toContain('netkeel-example-maintenance\n [X] MaintenanceWindows1795606193511\n');
    expect(await runCli(['migrate'], withPlugin)).toEqual({ code: 0, stderr: '', stdout: `No migrations to apply: ${where} is up to date.\n` });
  });

  it('creates superusers from the environment with --no-input, or by asking on a terminal (a password never shown)', async () => {
    const bob = { ...env, SUPERUSER_NAME: 'bob', SUPERUSER_EMAIL: 'bob@example.com', SUPERUSER_PASSWORD: 'bob-password' };
    expect(await runCli(['createsuperuser', '--no-input'], bob)).toEqual({ code: 0, stderr: '', stdout: 'Superuser created successfully.\n' });
    const again = await runCli(['createsuperuser', '--no-input'], bob);
    expect(again.code).toBe(1);
    expect(oneLine(again)).toBe('netkeel: createsuperuser: the username "bob" is already taken.');

    expect((await runCli(['createsuperuser', '--username', 'eve', '--email', 'eve@example.com', '--password-stdin'], env, 'eve-password\n')).code).toBe(0);
    if (!everyPrompt) return;
    const noPassword = await runCli(['createsuperuser', '--no-input', '--username', 'dave'], env);
    expect(noPassword).toMatchObject({ code: 0, stdout: 'Superuser created successfully, without a password: it cannot log in until `netkeel changepassword dave`.\n' });
    const badName = await runCli(['createsuperuser', '--no-input', '--username', 'no spaces'], env);
    expect(badName.code).toBe(1);
    expect(oneLine(badName)).toBe('netkeel: createsuperuser: username: Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.');
    const notTty = await runCli(['createsuperuser'], env);
    expect(notTty.code).toBe(1);
    expect(oneLine(notTty)).toMatch(/^netkeel: createsuperuser: standard input is not a terminal: use --no-input/);

    const { code, screen } = await runCliOnTerminal(['createsuperuser'], env, [
      ['Username', 'bob'],
      ['Error: That username is already taken.', null],
      ['Username', 'carol'],
      ['Email address: ', 'not-an-address'],
      ['Error: Enter a valid email address.', null],
      ['Email address: ', 'carol@example.com'],
      ['Password: ', 'first-try-password'],
      ['Password (again): ', 'second-try-password'],
      ["Error: Your passwords didn't match.", null],
      ['Password: ', 'short'],
      ['Password (again): ', 'short'],
      ['Error: This password is too short. It must contain at least 8 characters.', null],
      ['Password: ', 'carol-password'],
      ['Password (again): ', 'carol-password'],
    ]);
    expect(screen).toContain('Superuser created successfully.');
    expect(code).toBe(0);
    for (const typed of ['first-try-password', 'second-try-password', 'carol-password', 'short\r']) expect(screen).not.toContain(typed);
  });

  it("changes a user's password twice asked on a terminal (three attempts) or from standard input", async () => {
    expect(await runCli(['changepassword', 'bob', '--password-stdin'], env, 'bob-new-password\n')).toEqual({ code: 0, stderr: '', stdout: "Password changed successfully for user 'bob'.\n" });
    if (!everyPrompt) return;
    const mismatch = (n: number): [string, string][] => [
      ['Password: ', `attempt-${n}-aaaa`],
      ['Password (again): ', `attempt-${n}-bbbb`],
    ];
    const abandoned = await runCliOnTerminal(['changepassword', 'carol'], env, [...mismatch(1), ...mismatch(2), ...mismatch(3)]);
    expect(abandoned.code).toBe(1);
    expect(abandoned.screen).toContain("Changing password for user 'carol'");
    expect(abandoned.screen).toContain("netkeel: changepassword: aborting the password change for user 'carol' after 3 attempts.");

    const changed = await runCliOnTerminal(['changepassword', 'carol'], env, [
      ['Password: ', 'carol-new-password'],
      ['Password (again): ', 'carol-new-password'],
    ]);
    expect(changed.screen).toContain("Password changed successfully for user 'carol'.");
    expect(changed.screen).not.toContain('carol-new-password');
    expect(changed.code).toBe(0);

    const short = await runCli(['changepassword', 'bob', '--password-stdin'], env, 'short\n');
    expect(short.code).toBe(1);
    expect(oneLine(short)).toBe('netkeel: changepassword: password: This password is too short. It must contain at least 8 characters.');
    const nobody = await runCli(['changepassword', 'nobody', '--password-stdin'], env, 'whatever-password\n');
    expect(nobody.code).toBe(1);
    expect(oneLine(nobody)).toBe('netkeel: changepassword: user "nobody" does not exist.');
  });

  it('made superusers who log in to the server with the passwords set', async () => {
    handedOver = true;
    const t = await startApp(kind, { database });
    try {
      const token = (user: string, password: string) => t.http.post('/api/users/tokens/').set('Authorization', basic(user, password));
      await token('bob', 'bob-new-password').expect(201);
      await token('eve', 'eve-password').expect(201);
      await token('bob', 'bob-password').expect(403);
      if (everyPrompt) {
        await token('carol', 'carol-new-password').expect(201);
        await token('dave', '').expect(403);
      }
      const users = (await t.get('/api/users/users/?username=bob&username=carol&username=dave&username=eve').expect(200)).body.results;
      expect(users.map((u: Record<string, unknown>) => [u.username, u.email, u.is_superuser, u.is_staff, u.is_active])).toEqual([
        ['bob', 'bob@example.com', true, true, true],
        ...(everyPrompt
          ? [
              ['carol', 'carol@example.com', true, true, true],
              ['dave', '', true, true, true],
            ]
          : []),
        ['eve', 'eve@example.com', true, true, true],
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('netkeel command-line tool: usage and errors', () => {
  it('says what is wrong in one line (2: usage or configuration, 1: anything else), never a stack or a secret', async () => {
    const none = await runCli([], {});
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^usage: netkeel <command>/);
    for (const args of [['bogus'], ['migrate', '--bogus'], ['changepassword', 'a', 'b']]) {
      const r = await runCli(args, {});
      expect(r.code).toBe(2);
      oneLine(r);
    }
    const secret = await runCli(['migrate'], { SECRET_KEY: 'short-secret-value' });
    expect(secret.code).toBe(2);
    expect(oneLine(secret)).toBe('netkeel: Invalid configuration: SECRET_KEY: SECRET_KEY must be at least 32 characters long (got a value that is not shown)');

    const down = await runCli(['migrate'], { DATABASE_URL: 'postgres://netkeel:pw-secret@127.0.0.1:1/inventory', DATABASE_CONNECT_TIMEOUT: '0' });
    expect(down.code).toBe(1);
    expect(oneLine(down)).toBe('netkeel: migrate: Could not open the database (PostgreSQL at 127.0.0.1:1/inventory) after 1 attempt(s): connect ECONNREFUSED 127.0.0.1:1');
    expect(down.stderr + down.stdout).not.toContain('pw-secret');

    const unlock = await runCli(['unlock'], { DATABASE_URL: 'postgres://netkeel@127.0.0.1:1/inventory' });
    expect(unlock.code).toBe(1);
    expect(oneLine(unlock)).toBe("netkeel: unlock: only the embedded database's data directory has a lock (DATABASE_URL is set).");

    // Without the build's schema snapshot a new embedded database has no migration applied.
    const unmigrated = await runCli(['createsuperuser', '--no-input', '--username', 'x'], { DATA_DIR: 'memory://', PGLITE_SNAPSHOT_DIR: 'none' });
    expect(unmigrated.code).toBe(1);
    expect(oneLine(unmigrated)).toBe(`netkeel: createsuperuser: the database has ${netkeelMigrations('pglite')} migration(s) not applied yet: run \`netkeel migrate\` (or start the server) first.`);
  });

  it("is the package's bin: npx netkeel runs it", () => {
    const r = spawnSync('npx', ['--offline', '--no', 'netkeel', 'help'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: netkeel <command>/);
    expect(r.stdout).toContain('createsuperuser');
  });
});
