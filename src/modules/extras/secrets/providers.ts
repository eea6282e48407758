import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { SecretEnvironment } from '../../../config/secret-environment';

/** Where a provider may read values: what the operator allowed (settings), never more. */
export interface SecretSources {
  /** The variables SECRETS_ENV_VARIABLES allows (none when absent). */
  environment?: SecretEnvironment;
  /** SECRETS_FILE_ROOT: text-file secrets lie under it ('' = none may be read). */
  fileRoot: string;
  /** DATA_DIR: the server's own files (its secret key) are never read, even under the root. */
  dataDir: string;
}

/** The reference's secret errors, by class: a check names the class, the secret and the provider. */
export type SecretErrorKind = 'SecretError' | 'SecretParametersError' | 'SecretValueNotFoundError' | 'SecretProviderError';

export class SecretError extends Error {
  constructor(
    readonly kind: SecretErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A way of reading a secret's value (the reference's SecretsProvider): its slug (a secret's
 * `provider`), its parameters and their checks (answered as a 400 under `parameters`), and the
 * read. A value is read only when asked for (the check endpoint) and never kept.
 */
export interface SecretsProvider {
  slug: string;
  name: string;
  /** The reference's class name, as a check's message names the provider. */
  className: string;
  /** The parameters it takes, each required. */
  parameters: readonly string[];
  /** Provider-specific checks of parameters that are present and strings. */
  validate?: (params: Record<string, string>) => string[];
  value: (params: Record<string, string>, sources: SecretSources) => Promise<string>;
}

/** Largest text file a secret may be read from: a secret is a few lines, not a disk. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

const environmentVariable: SecretsProvider = {
  slug: 'environment-variable',
  name: 'Environment Variable',
  className: 'EnvironmentVariableSecretsProvider',
  parameters: ['variable'],
  async value({ variable }, { environment }) {
    // Decided on the name alone, before the environment is looked at: the answer for a variable
    // netkeel may not read is the same whether it is set or not.
    if (!environment?.allows(variable)) throw new SecretError('SecretParametersError', `Environment variable "${variable}" is not one that secrets may read (SECRETS_ENV_VARIABLES)`);
    const value = environment.read(variable);
    if (value === undefined) throw new SecretError('SecretValueNotFoundError', `Undefined environment variable "${variable}"!`);
    return value;
  },
};

const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

const textFile: SecretsProvider = {
  slug: 'text-file',
  name: 'Text File',
  className: 'TextFileSecretsProvider',
  parameters: ['path'],
  validate({ path }) {
    if (!path.startsWith('/')) return ['Path must be an absolute path, not a relative one'];
    if (path.includes('..')) return ['Illegal character sequence in path'];
    if (path.includes('\0')) return ['Illegal character in path'];
    return [];
  },
  async value({ path }, { fileRoot, dataDir }) {
    if (!fileRoot) throw new SecretError('SecretProviderError', 'Text file secrets are not enabled on this server (SECRETS_FILE_ROOT is not set)');
    const outside = () => new SecretError('SecretParametersError', `File "${path}" is not under the directory that secrets may read (SECRETS_FILE_ROOT)`);
    // The path is judged as written before anything is asked of the file system, so a path
    // outside the root answers the same whether it exists or not.
    const root = resolve(fileRoot);
    if (!within(resolve(path), root)) throw outside();
    const rootReal = await realpath(root).catch(() => null);
    if (!rootReal) throw new SecretError('SecretProviderError', 'SECRETS_FILE_ROOT is not a directory that exists');
    const real = await realpath(path).catch(() => null);
    if (!real) throw new SecretError('SecretValueNotFoundError', `File "${path}" not found!`);
    // Symbolic links are followed: where they lead must be under the root too, and never the
    // server's own data directory.
    const data = dataDir.startsWith('memory://') ? null : await realpath(resolve(dataDir)).catch(() => null);
    if (!within(real, rootReal) || (data && within(real, data))) throw outside();
    // O_NOFOLLOW: a link swapped in since; O_NONBLOCK: a FIFO never holds the request.
    const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
    if (!handle) throw new SecretError('SecretValueNotFoundError', `File "${path}" not found!`);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new SecretError('SecretValueNotFoundError', `File "${path}" not found!`);
      if (stat.size > MAX_SECRET_FILE_BYTES) throw new SecretError('SecretProviderError', `File "${path}" is larger than ${MAX_SECRET_FILE_BYTES} bytes`);
      const buffer = Buffer.alloc(MAX_SECRET_FILE_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_SECRET_FILE_BYTES) throw new SecretError('SecretProviderError', `File "${path}" is larger than ${MAX_SECRET_FILE_BYTES} bytes`);
      return buffer.subarray(0, bytesRead).toString('utf8').trim();
    } finally {
      await handle.close();
    }
  },
};

/** The providers built in, by slug (the reference's registry["secrets_providers"]). */
export const SECRETS_PROVIDERS: ReadonlyMap<string, SecretsProvider> = new Map([environmentVariable, textFile].map((p) => [p.slug, p]));

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The errors of a secret's provider and parameters, by field: an unknown provider (the
 * reference's message), parameters that are not an object, a missing, non-text or unknown
 * parameter, and the provider's own checks.
 */
export function secretErrors(slug: unknown, params: unknown): Record<string, string[]> | undefined {
  const provider = typeof slug === 'string' ? SECRETS_PROVIDERS.get(slug) : undefined;
  if (!provider) return { provider: [`No registered provider "${String(slug)}" is available`] };
  if (!isObject(params)) return { parameters: [`Parameters must be an object naming ${provider.parameters.map((p) => `"${p}"`).join(', ')}.`] };
  const errors: string[] = [];
  for (const name of provider.parameters) {
    if (!Object.hasOwn(params, name) || params[name] === '' || params[name] === null) errors.push(`The "${name}" parameter is mandatory!`);
    else if (typeof params[name] !== 'string') errors.push(`The "${name}" parameter must be a string.`);
  }
  for (const name of Object.keys(params)) {
    if (!provider.parameters.includes(name)) errors.push(`Unknown parameter "${name}" for provider "${provider.slug}" (it takes ${provider.parameters.map((p) => `"${p}"`).join(', ')}).`);
  }
  if (!errors.length && provider.validate) errors.push(...provider.validate(params as Record<string, string>));
  return errors.length ? { parameters: errors } : undefined;
}

/** The outcome of a check, as the reference words it: "Passed", or the error naming its class, the secret and the provider. */
export async function checkSecret(secret: { name: string; provider: string; parameters: unknown }, sources: SecretSources): Promise<{ result: boolean; message: string }> {
  const provider = SECRETS_PROVIDERS.get(secret.provider);
  const fail = (kind: SecretErrorKind, by: string, message: string) => ({ result: false, message: `${kind}: Secret "${secret.name}" (provider "${by}"): ${message}` });
  if (!provider) return fail('SecretProviderError', secret.provider, `No registered provider "${secret.provider}" is available`);
  const invalid = secretErrors(secret.provider, secret.parameters);
  if (invalid) return fail('SecretParametersError', provider.className, Object.values(invalid).flat().join(' '));
  try {
    await provider.value(secret.parameters as Record<string, string>, sources);
    return { result: true, message: 'Passed' };
  } catch (e) {
    // Only the provider's own errors are told: another failure's text could carry anything.
    if (e instanceof SecretError) return fail(e.kind, provider.className, e.message);
    return fail('SecretError', provider.className, 'The value could not be read');
  }
}
