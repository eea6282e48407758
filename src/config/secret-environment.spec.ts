import { inspect } from 'node:util';
import { loadSettings } from './settings';

describe('the environment secrets may read', () => {
  const env = { NETKEEL_SECRET_A: 'a-value', OTHER: 'other-value', SECRET_KEY: 'k'.repeat(40), SUPERUSER_NAME: 'admin', SUPERUSER_API_TOKEN: '0'.repeat(40) };

  it('is NETKEEL_SECRET_* by default, and never one of the settings', () => {
    const s = loadSettings(env);
    expect(s.SECRETS_ENV_VARIABLES).toEqual(['NETKEEL_SECRET_*']);
    expect(s.SECRETS_FILE_ROOT).toBe('');
    expect(s.secretEnvironment?.read('NETKEEL_SECRET_A')).toBe('a-value');
    expect(s.secretEnvironment?.allows('OTHER')).toBe(false);
    expect(s.secretEnvironment?.read('OTHER')).toBeUndefined();
  });

  it('takes names and prefixes; `*` and a listed setting still leave the settings out; `none` allows nothing', () => {
    const all = loadSettings({ ...env, SECRETS_ENV_VARIABLES: '*, SECRET_KEY' }).secretEnvironment!;
    expect(all.read('OTHER')).toBe('other-value');
    for (const name of ['SECRET_KEY', 'secret_key', 'DATABASE_URL', 'SUPERUSER_API_TOKEN', 'SECRETS_FILE_ROOT', 'BAD-NAME', '']) expect(all.allows(name)).toBe(false);
    const named = loadSettings({ ...env, SECRETS_ENV_VARIABLES: 'OTHER,APP_*' }).secretEnvironment!;
    expect([named.allows('OTHER'), named.allows('OTHERS'), named.allows('APP_X'), named.allows('NETKEEL_SECRET_A')]).toEqual([true, false, true, false]);
    expect(loadSettings({ ...env, SECRETS_ENV_VARIABLES: 'none' }).secretEnvironment!.allows('NETKEEL_SECRET_A')).toBe(false);
  });

  it('refuses malformed entries and a relative file root', () => {
    expect(() => loadSettings({ SECRETS_ENV_VARIABLES: 'A B' })).toThrow(/SECRETS_ENV_VARIABLES entries must be/);
    expect(() => loadSettings({ SECRETS_FILE_ROOT: 'run/secrets' })).toThrow(/SECRETS_FILE_ROOT must be an absolute path/);
    expect(loadSettings({ SECRETS_FILE_ROOT: '/run/secrets' }).SECRETS_FILE_ROOT).toBe('/run/secrets');
  });

  it('never shows the environment in JSON or an inspection of the settings', () => {
    const s = loadSettings(env);
    expect(JSON.stringify(s)).not.toContain('a-value');
    expect(inspect(s, { depth: 5, showHidden: true })).not.toContain('a-value');
  });
});
