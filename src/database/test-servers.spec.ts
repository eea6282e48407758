import { execFileSync } from 'node:child_process';
import { accessSync, constants, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { dropDatabase, freshDatabase, testDatabases } from './test-servers';

/**
 * The run's end drops its MariaDB databases; one whose directory holds a file the server does not
 * know of (errno 39, "Directory not empty") is reported with that file, and the run goes on. Needs
 * the server's data directory on this machine, writable by this process, to leave such a file
 * (and take it away): the test is skipped, as such, where it is not.
 */
function writableDataDir(): string | undefined {
  if (!testDatabases().includes('mysql')) return undefined;
  // Decided before the tests are declared, so synchronously: the server's @@datadir, read by a child process.
  const script = `require(${JSON.stringify(require.resolve('mysql2/promise'))}).createConnection({ uri: process.env.TEST_MYSQL_URL })
    .then(async (c) => { const [[r]] = await c.query('SELECT @@datadir AS dir'); await c.end(); process.stdout.write(r.dir); })`;
  const dir = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  try {
    accessSync(dir, constants.W_OK);
    return dir;
  } catch {
    return undefined;
  }
}

async function exists(name: string): Promise<boolean> {
  const c = await createConnection({ uri: process.env.TEST_MYSQL_URL! });
  try {
    const [rows] = (await c.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name])) as unknown as [unknown[]];
    return rows.length > 0;
  } finally {
    await c.end();
  }
}

const dir = writableDataDir();

(dir ? describe : describe.skip)('dropping a MariaDB test database', () => {
  it('reports a directory the server cannot remove, with the files it left, instead of failing', async () => {
    const fresh = await freshDatabase('mysql');
    const name = decodeURIComponent(new URL(fresh.url).pathname.slice(1));
    const stray = join(dir!, name, 'stray.bin');
    writeFileSync(stray, 'x');
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await expect(dropDatabase('mysql', name)).resolves.toBeUndefined();
      // One warning about this drop (whatever else this worker's process may warn of meanwhile: the drop waits a second).
      const about = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('could not drop the test database'));
      expect(about).toHaveLength(1);
      expect(about[0]).toMatch(new RegExp(`could not drop the test database ${name}: .*errno: 39.*; files left: stray\\.bin$`));
    } finally {
      warn.mockRestore();
      rmSync(stray, { force: true });
    }
    // Without the stray file the same call drops it, and says nothing.
    const quiet = jest.spyOn(console, 'warn');
    try {
      await dropDatabase('mysql', name);
      expect(await exists(name)).toBe(false);
      expect(quiet.mock.calls.filter((c) => String(c[0]).includes('could not drop'))).toEqual([]);
    } finally {
      quiet.mockRestore();
    }
  });
});
