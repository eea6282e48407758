import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { netkeelEnv, serve, spawnServer } from '../support/processes';

/** Runs the built server until it prints that it listens (or exits); returns its output. */
async function run(env: Record<string, string>, stopWhenListening = true): Promise<{ code: number | null; out: string }> {
  const server = spawnServer(netkeelEnv(env));
  if (stopWhenListening) server.listening.then(() => server.child.kill('SIGTERM'), () => undefined);
  return { code: await server.exited, out: server.output() };
}

describe('start-up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'netkeel-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops on a bad setting with exit code 2 and a message naming the variable', async () => {
    const res = await run({ PORT: 'eighty', DATA_DIR: dir });
    expect(res.code).toBe(2);
    expect(res.out).toMatch(/PORT: /);
  });

  it('waits for a database server that does not answer, then stops with one line naming it, never its password', async () => {
    const res = await run({ DATABASE_URL: 'postgres://netkeel:pw-secret@127.0.0.1:1/inventory', DATABASE_CONNECT_TIMEOUT: '1' }, false);
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/not reachable \(attempt 1\): connect ECONNREFUSED 127\.0\.0\.1:1; trying again in 1 s/);
    expect(res.out).toMatch(/netkeel: failed to start: Could not open the database \(PostgreSQL at 127\.0\.0\.1:1\/inventory\) after \d attempt\(s\): connect ECONNREFUSED/);
    expect(res.out).not.toContain('pw-secret');
    expect(res.out).not.toMatch(/^\s+at /m);
  });

  it('never shows a secret setting it refuses', async () => {
    const res = await run({ SECRET_KEY: 'too-short-to-be-a-secret', DATA_DIR: dir });
    expect(res.code).toBe(2);
    expect(res.out).toMatch(/SECRET_KEY: /);
    expect(res.out).not.toContain('too-short-to-be-a-secret');
  });

  it('stops on event brokers it cannot make, in one line: a malformed setting (2), a class nobody defines (1)', async () => {
    const own = mkdtempSync(join(tmpdir(), 'netkeel-events-'));
    const malformed = await run({ EVENT_BROKERS: '{"bus": {"CLASS": "syslog", "TOPICS": ["nautobot.*"]}}', DATA_DIR: own });
    expect(malformed.code).toBe(2);
    expect(malformed.out).toContain("EVENT_BROKERS: bus Malformed Event Broker Settings: Expected `TOPICS` to be a 'dict', instead a 'list' was provided");
    const unknown = await run({ EVENT_BROKERS: '{"bus": {"CLASS": "kafka"}}', DATA_DIR: own });
    rmSync(own, { recursive: true, force: true });
    expect(unknown.code).toBe(1);
    expect(unknown.out).toContain('netkeel: failed to start: Unable to import Event Broker bus.');
    expect(unknown.out).not.toMatch(/^\s+at /m);
  });

  it('creates admin with a random password and token on the first start only, and prints them once', async () => {
    const port = String(21000 + Math.floor(Math.random() * 2000));
    const first = await run({ DATA_DIR: dir, PORT: port });
    const password = /password:\s+(\S+)/.exec(first.out)?.[1];
    const token = /API token: ([0-9a-f]{40})/.exec(first.out)?.[1];
    expect(password).toBeDefined();
    expect(token).toBeDefined();
    // The generated server secret is kept, readable by its owner only, and used again.
    expect(statSync(join(dir, 'secret_key')).mode & 0o777).toBe(0o600);
    const second = await run({ DATA_DIR: dir, PORT: port, LOG_LEVEL: 'info' });
    expect(second.out).not.toMatch(/API token/);
    // The start-up log names the database in use and its version.
    expect(second.out).toContain(`Using embedded PGlite in ${dir}: PostgreSQL `);
    // the printed credentials work
    const server = await serve({ DATA_DIR: dir, PORT: port });
    try {
      await request(`http://127.0.0.1:${port}`).get('/api/').set('Authorization', `Token ${token}`).expect(200);
      // Probes need no credentials.
      expect((await request(`http://127.0.0.1:${port}`).get('/health/').expect(200)).body).toEqual({ status: 'ok' });
      expect((await request(`http://127.0.0.1:${port}`).get('/ready/').expect(200)).body).toEqual({ status: 'ready' });
      const res = await request(`http://127.0.0.1:${port}`).post('/api/users/tokens/').set('Authorization', `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`).expect(201);
      expect(res.body.key).toMatch(/^[0-9a-f]{40}$/);
      const statuses = await request(`http://127.0.0.1:${port}`).get('/api/extras/statuses/').set('Authorization', `Token ${token}`).expect(200);
      expect(statuses.body.results.map((s: { name: string }) => s.name).sort()).toEqual([
        'Active', 'Available', 'Connected', 'Decommissioned', 'Decommissioning', 'Deprecated', 'Deprovisioning', 'End-of-Life', 'Extended Support',
        'Failed', 'Inventory', 'Maintenance', 'Offline', 'Planned', 'Primary', 'Provisioning', 'Reserved', 'Retired', 'Secondary', 'Staged', 'Staging',
      ]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
