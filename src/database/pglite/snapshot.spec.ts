import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manifestOf, pgliteVersion, readSnapshot, writeSnapshot } from './snapshot';

/* eslint-disable @typescript-eslint/no-unused-vars */
class First1000000000000 {
  async up(q: { query(s: string): Promise<unknown> }) {
    await q.query('CREATE TABLE a (id int)');
  }
  async down(q: { query(s: string): Promise<unknown> }) {
    await q.query('DROP TABLE a');
  }
}
class Second2000000000000 {
  async up(q: { query(s: string): Promise<unknown> }) {
    await q.query('CREATE TABLE b (id int)');
  }
  async down(q: { query(s: string): Promise<unknown> }) {
    await q.query('DROP TABLE b');
  }
}
/** The same name as First, other code: a migration edited after the snapshot was made. */
const EditedFirst = {
  First1000000000000: class {
    async up(q: { query(s: string): Promise<unknown> }) {
      await q.query('CREATE TABLE a (id bigint)');
    }
    async down(q: { query(s: string): Promise<unknown> }) {
      await q.query('DROP TABLE a');
    }
  },
}.First1000000000000;

describe('PGlite schema snapshot: which one may start a new database', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'netkeel-snapshot-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const tarball = Buffer.from('not really a tarball');

  it('is absent where none was made', () => {
    expect(readSnapshot(dir, [First1000000000000])).toEqual({ state: 'absent' });
  });

  it('is used for the migrations it was made from, and where newer migrations follow them (those then run)', () => {
    writeSnapshot(dir, tarball, manifestOf([First1000000000000]));
    expect(readSnapshot(dir, [First1000000000000])).toEqual({ state: 'usable', tarball, migrations: ['First1000000000000'] });
    expect(readSnapshot(dir, [First1000000000000, Second2000000000000])).toMatchObject({ state: 'usable', migrations: ['First1000000000000'] });
  });

  it('is not used when a migration it holds is gone or its code differs, or another PGlite made it', () => {
    writeSnapshot(dir, tarball, manifestOf([First1000000000000, Second2000000000000]));
    expect(readSnapshot(dir, [First1000000000000])).toEqual({ state: 'stale', why: "its migration Second2000000000000 is not among this version's" });
    expect(readSnapshot(dir, [EditedFirst, Second2000000000000])).toEqual({ state: 'stale', why: "its migration First1000000000000 differs from this version's" });

    const manifest = JSON.parse(readFileSync(join(dir, 'schema.json'), 'utf8'));
    writeFileSync(join(dir, 'schema.json'), JSON.stringify({ ...manifest, pglite: '0.0.1' }));
    expect(readSnapshot(dir, [First1000000000000, Second2000000000000])).toEqual({ state: 'stale', why: `it was made by PGlite 0.0.1, this is ${pgliteVersion()}` });

    writeFileSync(join(dir, 'schema.json'), '{"half":');
    expect(readSnapshot(dir, [First1000000000000, Second2000000000000])).toMatchObject({ state: 'stale', why: expect.stringMatching(/^schema\.json does not read/) });
  });
});
