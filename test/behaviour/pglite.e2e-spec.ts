import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ADMIN_TOKEN, eachDatabase } from '../../src/core/testing/harness';
import { serve } from '../support/processes';

/**
 * What the embedded database must guarantee: real transaction isolation although PGlite has one
 * session, one process per data directory, and whole-or-nothing batches across a SIGKILL.
 */
eachDatabase('transaction isolation', (t) => {
  it('leaves nothing of a rolled-back bulk write while another request commits concurrently', async () => {
    // A user who may only add users named "ok-*": a batch ending with another name is written,
    // then fails the scope re-check and must roll back entirely. Hashing the passwords inside
    // the transaction yields to the event loop, so other requests run (and commit) meanwhile.
    const user = (await t().post('/api/users/users/', { username: 'limited', password: 'limited-password' }).expect(201)).body;
    await t().post('/api/users/permissions/', { name: 'add ok users', object_types: ['users.user'], actions: ['add', 'view'], constraints: { username__isw: 'ok-' }, users: [user.id] }).expect(201);
    await t().post('/api/users/permissions/', { name: 'own tokens', object_types: ['users.token'], actions: ['add', 'view'], users: [user.id] }).expect(201);
    const basic = `Basic ${Buffer.from('limited:limited-password').toString('base64')}`;
    const limitedToken = (await t().http.post('/api/users/tokens/').set('Authorization', basic).expect(201)).body.key;

    for (let round = 0; round < 2; round++) {
      const doomed = [...Array.from({ length: 6 }, (_, i) => ({ username: `ok-r${round}-${i}`, password: 'a-password-to-hash' })), { username: `bad-r${round}` }];
      const failing = t().post('/api/users/users/', doomed, limitedToken).then((r) => r); // sent now
      const commits: Promise<{ status: number }>[] = [];
      for (let i = 0; i < 10; i++) {
        commits.push(t().post('/api/tenancy/tenants/', { name: `good-r${round}-${i}` }).then((r) => r));
        await new Promise((r) => setTimeout(r, 20));
      }
      const [a, ...b] = await Promise.all([failing, ...commits]);
      expect(a.status).toBe(403);
      b.forEach((r) => expect(r.status).toBe(201));
      expect((await t().get(`/api/users/users/?username__isw=ok-r${round}-&limit=1`).expect(200)).body.count).toBe(0);
      expect((await t().get(`/api/tenancy/tenants/?name__isw=good-r${round}-&limit=1`).expect(200)).body.count).toBe(10);
    }
  });
});

describe('embedded database on disk', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), 'netkeel-test-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  const start = async (dir: string, port: number): Promise<ChildProcess> =>
    (await serve({ DATA_DIR: dir, PORT: String(port), SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password', SUPERUSER_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'error' })).child;

  it('keeps a bulk write whole or absent when the process is killed mid-request', async () => {
    const dir = fresh();
    const port = 18000 + Math.floor(Math.random() * 2000);
    const base = `http://127.0.0.1:${port}`;
    const batch = 2000;
    for (const delay of [30, 120, 400]) {
      const child = await start(dir, port);
      const names = Array.from({ length: batch }, (_, i) => ({ name: `kill-${delay}-${i}` }));
      const pending = request(base).post('/api/tenancy/tenants/').set('Authorization', `Token ${ADMIN_TOKEN}`).send(names).then(
        (r) => r.status,
        () => 'dropped',
      );
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await pending;
      await new Promise((r) => child.once('exit', r).once('close', r));
      const again = await start(dir, port);
      const res = await request(base).get(`/api/tenancy/tenants/?name__isw=kill-${delay}-&limit=1`).set('Authorization', `Token ${ADMIN_TOKEN}`).expect(200);
      expect([0, batch]).toContain(res.body.count);
      again.kill('SIGTERM');
      await new Promise((r) => again.once('exit', r));
    }
  });

  it('refuses to start a second server on the same data directory', async () => {
    const dir = fresh();
    const port = 20000 + Math.floor(Math.random() * 2000);
    const first = await start(dir, port);
    await expect(start(dir, port + 1)).rejects.toThrow(/in use by another netkeel process/);
    first.kill('SIGTERM');
    await new Promise((r) => first.once('exit', r));
  });
});
