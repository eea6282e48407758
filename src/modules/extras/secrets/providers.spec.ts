import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretEnvironment } from '../../../config/secret-environment';
import { checkSecret, secretErrors } from './providers';

describe('secrets providers', () => {
  const root = mkdtempSync(join(tmpdir(), 'netkeel-providers-'));
  mkdirSync(join(root, 'data'));
  writeFileSync(join(root, 'data', 'secret_key'), 'server-secret-key');
  writeFileSync(join(root, 'ok'), 'fine\n');
  const sources = { fileRoot: root, dataDir: join(root, 'data'), environment: new SecretEnvironment({ NETKEEL_SECRET_X: 'x' }, ['NETKEEL_SECRET_*'], []) };
  const file = (path: string) => ({ name: 's', provider: 'text-file', parameters: { path } });

  it("never reads the server's data directory, even under SECRETS_FILE_ROOT", async () => {
    expect(await checkSecret(file(join(root, 'ok')), sources)).toEqual({ result: true, message: 'Passed' });
    expect((await checkSecret(file(join(root, 'data', 'secret_key')), sources)).message).toBe(
      `SecretParametersError: Secret "s" (provider "TextFileSecretsProvider"): File "${join(root, 'data', 'secret_key')}" is not under the directory that secrets may read (SECRETS_FILE_ROOT)`,
    );
  });

  it('reads no file without SECRETS_FILE_ROOT, and no variable without an environment', async () => {
    expect((await checkSecret(file(join(root, 'ok')), { ...sources, fileRoot: '' })).message).toBe(
      'SecretProviderError: Secret "s" (provider "TextFileSecretsProvider"): Text file secrets are not enabled on this server (SECRETS_FILE_ROOT is not set)',
    );
    const env = { name: 'e', provider: 'environment-variable', parameters: { variable: 'NETKEEL_SECRET_X' } };
    expect(await checkSecret(env, sources)).toEqual({ result: true, message: 'Passed' });
    expect((await checkSecret(env, { ...sources, environment: undefined })).result).toBe(false);
  });

  it('answers a stored secret whose provider or parameters went bad without reading anything', async () => {
    expect(await checkSecret({ name: 'v', provider: 'vault', parameters: {} }, sources)).toEqual({
      result: false,
      message: 'SecretProviderError: Secret "v" (provider "vault"): No registered provider "vault" is available',
    });
    expect((await checkSecret({ name: 'p', provider: 'text-file', parameters: { path: 'relative' } }, sources)).message).toBe(
      'SecretParametersError: Secret "p" (provider "TextFileSecretsProvider"): Path must be an absolute path, not a relative one',
    );
    expect(secretErrors('environment-variable', { variable: 'A' })).toBeUndefined();
    expect(secretErrors('text-file', { path: '/a\0b' })).toEqual({ parameters: ['Illegal character in path'] });
  });
});
