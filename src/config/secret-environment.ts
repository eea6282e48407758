/**
 * The part of netkeel's environment that secrets may read (the environment-variable secrets
 * provider): the variables SECRETS_ENV_VARIABLES allows (names, prefixes ending in `*`, `*`),
 * never one of netkeel's own settings (DATABASE_URL, SECRET_KEY, the superuser's token, ...).
 * The settings module is the one reader of the environment (DESIGN rule 7): it hands this to
 * the secrets providers. The environment is held in a private field, so neither JSON nor a
 * logged inspection of the settings shows it.
 */
export class SecretEnvironment {
  readonly #env: Record<string, string | undefined>;
  readonly #allow: readonly string[];
  readonly #never: ReadonlySet<string>;

  constructor(env: Record<string, string | undefined>, allow: readonly string[], never: readonly string[]) {
    this.#env = env;
    this.#allow = allow.includes('none') ? [] : allow;
    this.#never = new Set(never.map((n) => n.toUpperCase()));
  }

  /** Whether a secret may read the variable (decided on the name alone: the answer says nothing of its value or presence). */
  allows(name: string): boolean {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || this.#never.has(name.toUpperCase())) return false;
    return this.#allow.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
  }

  /** The variable's value, when it is allowed and set; `undefined` otherwise (ask `allows` first to tell the two apart). */
  read(name: string): string | undefined {
    if (!this.allows(name)) return undefined;
    return Object.hasOwn(this.#env, name) ? this.#env[name] : undefined;
  }

  toJSON(): string {
    return '[secret environment]';
  }
}
