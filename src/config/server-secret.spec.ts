import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings, SettingsError } from './settings';
import { SECRET_FILE, withServerSecret } from './server-secret';

describe('the server secret', () => {
  it('is SECRET_KEY when set', () => {
    const s = withServerSecret(loadSettings({ SECRET_KEY: 'k'.repeat(40), DATA_DIR: 'memory://' }));
    expect(s.SECRET_KEY).toBe('k'.repeat(40));
  });

  it('is generated once into DATA_DIR/secret_key (owner-only) and kept across starts', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'netkeel-secret-')), 'data');
    const first = withServerSecret(loadSettings({ DATA_DIR: dir }));
    expect(first.SECRET_KEY!.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(join(dir, SECRET_FILE), 'utf8').trim()).toBe(first.SECRET_KEY);
    expect(statSync(join(dir, SECRET_FILE)).mode & 0o777).toBe(0o600);
    expect(withServerSecret(loadSettings({ DATA_DIR: dir })).SECRET_KEY).toBe(first.SECRET_KEY);
    // The settings object given is left as it was, and keeps its type.
    const given = loadSettings({ DATA_DIR: dir });
    expect(withServerSecret(given).PORT).toBe(8080);
    expect(given.SECRET_KEY).toBeUndefined();
  });

  it('refuses a kept file too short to be a secret', () => {
    const dir = mkdtempSync(join(tmpdir(), 'netkeel-secret-'));
    writeFileSync(join(dir, SECRET_FILE), 'short\n');
    expect(() => withServerSecret(loadSettings({ DATA_DIR: dir }))).toThrow(SettingsError);
  });

  it('is random per process for an in-memory database', () => {
    const a = withServerSecret(loadSettings({ DATA_DIR: 'memory://' })).SECRET_KEY;
    const b = withServerSecret(loadSettings({ DATA_DIR: 'memory://' })).SECRET_KEY;
    expect(a).not.toBe(b);
  });
});
