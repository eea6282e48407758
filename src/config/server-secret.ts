import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Settings, SettingsError } from './settings';

export const SECRET_FILE = 'secret_key';

/**
 * The server secret keys token hashes (HMAC) and signs session cookies, so it must outlive a
 * restart: `SECRET_KEY` when set; otherwise one generated once and kept in `DATA_DIR/secret_key`
 * (mode 0600); with an in-memory data directory, a random one for the process's life. Several
 * instances on one database server must share `SECRET_KEY`: the users app refuses to start with a
 * secret other than the one its tokens were hashed with.
 */
export function withServerSecret(settings: Settings): Settings {
  if (settings.SECRET_KEY) return settings;
  return Object.assign(Object.create(Object.getPrototypeOf(settings)) as Settings, settings, { SECRET_KEY: keptSecret(settings.DATA_DIR) });
}

function keptSecret(dataDir: string): string {
  if (dataDir.startsWith('memory://')) return randomBytes(32).toString('base64url');
  const dir = resolve(dataDir);
  const file = join(dir, SECRET_FILE);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length < 32) throw new SettingsError(`${file} holds no usable secret (at least 32 characters); remove it or set SECRET_KEY`);
    return kept;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const secret = randomBytes(32).toString('base64url');
  try {
    mkdirSync(dir, { recursive: true });
    // `wx`: never replace a secret another process wrote meanwhile; read that one instead.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return secret;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw new SettingsError(`SECRET_KEY is not set and ${file} cannot be written (${(e as Error).message}); set SECRET_KEY`);
  }
}
