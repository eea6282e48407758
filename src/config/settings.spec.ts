import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRate } from './rate';
import { loadSettings, SETTING_NAMES, Settings, SettingsError } from './settings';
import { REPO_ROOT } from '../core/testing/repo-root';

describe('settings', () => {
  it('applies the documented defaults', () => {
    const s = loadSettings({});
    expect(s).toMatchObject({
      PORT: 8080,
      HOST: '127.0.0.1',
      DATA_DIR: './data',
      PAGINATE_COUNT: 50,
      MAX_PAGE_SIZE: 1000,
      STRICT_FILTERING: true,
      PREPARED_STATEMENTS: true,
      PGLITE_SHARED_BUFFERS_MB: 16,
      PGLITE_SNAPSHOT_DIR: '',
      PGLITE_WASM_TIER_UP: false,
      EXEMPT_VIEW_PERMISSIONS: [],
      LOG_LEVEL: 'info',
      TRUST_PROXY: ['loopback'],
      BASE_PATH: '',
    });
    expect(s.DATABASE_URL).toBeUndefined();
  });

  it('parses values from the environment', () => {
    const s = loadSettings({ PORT: '9000', STRICT_FILTERING: 'false', EXEMPT_VIEW_PERMISSIONS: 'dcim.location, tenancy.tenant', MAX_PAGE_SIZE: '0', DATABASE_URL: 'postgres://u@h/db', PREPARED_STATEMENTS: 'false' });
    expect(s).toMatchObject({ PORT: 9000, STRICT_FILTERING: false, EXEMPT_VIEW_PERMISSIONS: ['dcim.location', 'tenancy.tenant'], MAX_PAGE_SIZE: 0, PREPARED_STATEMENTS: false });
  });

  it('are each listed in .env.example', () => {
    const listed = new Set([...readFileSync(join(REPO_ROOT, '.env.example'), 'utf8').matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]));
    expect(SETTING_NAMES.filter((k) => !listed.has(k))).toEqual([]);
    expect(SETTING_NAMES).toEqual(expect.arrayContaining([...Object.keys(new Settings()), 'DATABASE_URL', 'SECRET_KEY', 'SUPERUSER_NAME']));
  });

  it('reads RATE_LIMIT in DRF\'s form, off when empty', () => {
    expect(parseRate(loadSettings({}).RATE_LIMIT)).toBeNull();
    expect(loadSettings({}).RATE_LIMIT_EXEMPT_SUPERUSERS).toBe(false);
    expect(['1000/hour', '60/min', '10/s', '5/days', '1/d'].map((v) => parseRate(loadSettings({ RATE_LIMIT: v }).RATE_LIMIT))).toEqual([
      { limit: 1000, periodMs: 3_600_000 },
      { limit: 60, periodMs: 60_000 },
      { limit: 10, periodMs: 1000 },
      { limit: 5, periodMs: 86_400_000 },
      { limit: 1, periodMs: 86_400_000 },
    ]);
  });

  it('reads the reverse proxy settings: TRUST_PROXY as a list, BASE_PATH normalized', () => {
    expect(loadSettings({ TRUST_PROXY: '10.0.0.0/8, ::1,uniquelocal' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '::1', 'uniquelocal']);
    expect(loadSettings({ TRUST_PROXY: 'none' }).TRUST_PROXY).toEqual(['none']);
    expect(['/netkeel', 'netkeel', '/netkeel/', 'a/b/', '/'].map((v) => loadSettings({ BASE_PATH: v }).BASE_PATH)).toEqual(['/netkeel', '/netkeel', '/netkeel', '/a/b', '']);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PAGINATE_COUNT', '0'],
    ['MAX_PAGE_SIZE', '-1'],
    ['STRICT_FILTERING', 'maybe'],
    ['PREPARED_STATEMENTS', 'sometimes'],
    ['PGLITE_SHARED_BUFFERS_MB', '0'],
    ['PGLITE_SHARED_BUFFERS_MB', '16MB'],
    ['PGLITE_SHARED_BUFFERS_MB', '4096'],
    ['PGLITE_WASM_TIER_UP', 'fast'],
    ['DATABASE_URL', 'oracle://x'],
    ['EXEMPT_VIEW_PERMISSIONS', 'dcim'],
    ['SUPERUSER_API_TOKEN', 'not-hex'],
    ['SECRET_KEY', 'short'],
    ['LOG_LEVEL', 'chatty'],
    ['TRUST_PROXY', 'proxy.example'],
    ['TRUST_PROXY', '10.0.0.0/40'],
    ['BASE_PATH', '/a/../b'],
    ['BASE_PATH', '/a b'],
    ['BASE_PATH', 'https://example.com/x'],
    ['RATE_LIMIT', '1000'],
    ['RATE_LIMIT', '0/hour'],
    ['RATE_LIMIT', '10/fortnight'],
    ['RATE_LIMIT', '10 / hour'],
    ['RATE_LIMIT_EXEMPT_SUPERUSERS', 'perhaps'],
  ])('stops on a bad %s, naming it', (name, value) => {
    expect(() => loadSettings({ [name]: value })).toThrow(SettingsError);
    expect(() => loadSettings({ [name]: value })).toThrow(new RegExp(`${name}:`));
  });

  it('never shows a secret in its errors, nor the password of a database URL', () => {
    const message = (env: Record<string, string>) => {
      try {
        loadSettings(env);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    expect(message({ SECRET_KEY: 'hunter2-short' })).toMatch(/^Invalid configuration:\n {2}SECRET_KEY: .*\(got a value that is not shown\)$/);
    expect(message({ SECRET_KEY: 'hunter2-short' })).not.toContain('hunter2');
    expect(message({ SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'pw-short' })).not.toContain('pw-short');
    expect(message({ SUPERUSER_API_TOKEN: 'tok-secret' })).not.toContain('tok-secret');
    const url = message({ DATABASE_URL: 'oracle://netkeel:s3cret@db.example:1521/x' });
    expect(url).toContain('oracle://netkeel:***@db.example:1521/x');
    expect(url).not.toContain('s3cret');
    // Malformed: no "://", a password with an unencoded @ or /.
    expect(message({ DATABASE_URL: 'postgres//bob:hunter2secret@db/x' })).toContain('(got "postgres//bob:***@db/x")');
    expect(message({ DATABASE_URL: 'postgres:/bob:p@ss/w0rd@db/x' })).toContain('(got "postgres:***@db/x")');
    expect(message({ DATABASE_URL: 'mysql:/root:pa/ss@db' })).not.toContain('pa/ss');
  });

  it('says only what is wrong with a value of the wrong type, not the ranges it misses too', () => {
    expect(() => loadSettings({ PORT: 'abc' })).toThrow(/^Invalid configuration:\n {2}PORT: PORT must be an integer number \(got "abc"\)$/);
    expect(() => loadSettings({ PORT: '70000' })).toThrow(/^Invalid configuration:\n {2}PORT: PORT must not be greater than 65535 \(got "70000"\)$/);
  });

  it.each([
    ['SUPERUSER_PASSWORD', 'long-enough-password'],
    ['SUPERUSER_API_TOKEN', '0123456789abcdef0123456789abcdef01234567'],
    ['SUPERUSER_EMAIL', 'admin@example.com'],
  ])('needs a superuser name with %s (it would be ignored without one)', (name, value) => {
    expect(() => loadSettings({ [name]: value })).toThrow(`SUPERUSER_NAME: required when ${name} is set`);
    expect(loadSettings({ [name]: value, SUPERUSER_NAME: 'admin' })[name as 'SUPERUSER_EMAIL']).toBe(value);
  });
});
