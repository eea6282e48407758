import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  Validate,
  validateSync,
  ValidationArguments,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from '../core/class-validator';
import ipaddr from 'ipaddr.js';
import { isTrustEntry, normalizePrefix } from '../core/http/external';
import { eventBrokerSettings } from '../core/events/settings';
import { SecretEnvironment } from './secret-environment';
import { RATE_FORM } from './rate';

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?\d+$/.test(String(value)) ? Number(value) : value;
const toBool = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  const v = String(value).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  return value;
};
const toList = ({ value }: { value: unknown }) => (value === undefined ? undefined : String(value).split(',').map((s) => s.trim()).filter(Boolean));

@ValidatorConstraint({ name: 'trustEntry' })
class TrustEntry implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && isTrustEntry(value);
  }
  defaultMessage(): string {
    return 'TRUST_PROXY entries must be IP addresses, CIDR blocks (10.0.0.0/8), loopback, linklocal, uniquelocal or none';
  }
}

@ValidatorConstraint({ name: 'cidr' })
class Cidr implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && ipaddr.isValidCIDR(value);
  }
  defaultMessage(): string {
    return 'entries must be networks in CIDR form (10.0.0.0/8, fd00::/8)';
  }
}

/** A setting's text that does not parse as JSON, kept for its message. */
class NotJson {
  constructor(readonly reason: string) {}
}
const toJson = ({ value }: { value: unknown }) => {
  if (value === undefined || typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch (e) {
    return new NotJson((e as Error).message);
  }
};

@ValidatorConstraint({ name: 'eventBrokers' })
class EventBrokerShape implements ValidatorConstraintInterface {
  private problem(value: unknown): string | null {
    if (value instanceof NotJson) return `EVENT_BROKERS must be JSON: ${value.reason}`;
    try {
      eventBrokerSettings(value);
      return null;
    } catch (e) {
      return (e as Error).message;
    }
  }
  validate(value: unknown): boolean {
    return this.problem(value) === null;
  }
  defaultMessage(args: ValidationArguments): string {
    return this.problem(args.value) ?? '';
  }
}

@ValidatorConstraint({ name: 'basePath' })
class BasePath implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && normalizePrefix(value) === value;
  }
  defaultMessage(): string {
    return 'BASE_PATH must be a path such as /netkeel (letters, digits and ._~- between slashes)';
  }
}

/**
 * Every setting netkeel reads from the environment, validated once at boot.
 * Nothing else in the code reads process.env (DESIGN.md rule 7).
 */
export class Settings {
  @Transform(toInt) @IsInt() @Min(0) @Max(65535)
  PORT = 8080;

  @IsString() @MinLength(1)
  HOST = '127.0.0.1';

  /** postgres://… or mysql://…; unset means the embedded PGlite database in DATA_DIR. */
  @IsOptional() @IsString() @Matches(/^(postgres|postgresql|mysql|mariadb):\/\/.+/, {
    message: 'DATABASE_URL must start with postgres://, postgresql://, mysql:// or mariadb://',
  })
  DATABASE_URL?: string;

  /** How long, in seconds, a database server not reachable at start is tried again. */
  @Transform(toInt) @IsInt() @Min(0)
  DATABASE_CONNECT_TIMEOUT = 60;

  /** Data directory of the embedded database; "memory://" keeps it in memory (tests). */
  @IsString() @MinLength(1)
  DATA_DIR = './data';

  /**
   * The embedded database (README, Databases): its page cache (shared_buffers, MB) in WebAssembly
   * memory that never shrinks; V8's optimizing tier for its WebAssembly (faster big pages, ~200 MB
   * more RSS); the schema snapshot a new one starts from (empty: dist/pglite-snapshot; `none`).
   */
  @Transform(toInt) @IsInt() @Min(1) @Max(1024) PGLITE_SHARED_BUFFERS_MB = 16;
  @Transform(toBool) @IsBoolean() PGLITE_WASM_TIER_UP = false;
  @IsString() PGLITE_SNAPSHOT_DIR = '';

  @Transform(toInt) @IsInt() @Min(1)
  PAGINATE_COUNT = 50;

  @Transform(toInt) @IsInt() @Min(0)
  MAX_PAGE_SIZE = 1000;

  @Transform(toBool) @IsBoolean()
  STRICT_FILTERING = true;

  /** GraphQL: how deep a query's selections may nest (introspection not counted). */
  @Transform(toInt) @IsInt() @Min(1)
  GRAPHQL_MAX_DEPTH = 10;

  /** GraphQL: how many fields a query may select, fragments counted wherever they are spread. */
  @Transform(toInt) @IsInt() @Min(1)
  GRAPHQL_MAX_FIELDS = 1000;

  /** GraphQL: how many objects one query may load, all levels together. */
  @Transform(toInt) @IsInt() @Min(1)
  GRAPHQL_MAX_OBJECTS = 100000;

  /** `app.model` entries or `*`. */
  @Transform(toList) @IsString({ each: true }) @Matches(/^(\*|[a-z_]+\.[a-z_]+)$/, {
    each: true,
    message: 'EXEMPT_VIEW_PERMISSIONS entries must be "*" or "app_label.model_name"',
  })
  EXEMPT_VIEW_PERMISSIONS: string[] = [];

  /**
   * Host names this service answers to (the Host header; a leading dot matches subdomains, `*`
   * any). Set it in production: URLs in responses are built from the Host header.
   */
  @Transform(toList) @IsString({ each: true }) @Matches(/^(\*|\.?[A-Za-z0-9_.:\[\]-]+)$/, {
    each: true,
    message: 'ALLOWED_HOSTS entries must be host names, ".domain" or "*"',
  })
  ALLOWED_HOSTS: string[] = ['*'];

  /**
   * Addresses and CIDR blocks of the reverse proxies whose `Forwarded` / `X-Forwarded-Proto`,
   * `-Host`, `-Prefix` and `-For` headers are believed (`loopback`, `linklocal`, `uniquelocal`
   * name ranges; `none` trusts no one). A request from any other peer has those headers ignored.
   */
  @Transform(toList) @IsString({ each: true }) @Validate(TrustEntry, { each: true })
  TRUST_PROXY: string[] = ['loopback'];

  /** The path under which every route lives (e.g. `/netkeel`); '' = the root. Normalized without a trailing slash. */
  @Transform(({ value }) => (typeof value === 'string' ? (normalizePrefix(value.startsWith('/') ? value : `/${value}`) ?? value) : value))
  @IsString() @Validate(BasePath)
  BASE_PATH = '';

  /**
   * Plugins to load at start, in order: npm package names, or folders (a path starting with `.`
   * or `/`) whose entry exports a plugin made with definePlugin (docs/plugins.md).
   */
  @Transform(toList) @IsString({ each: true })
  PLUGINS: string[] = [];

  @IsOptional() @IsString() @MinLength(32, { message: 'SECRET_KEY must be at least 32 characters long' })
  SECRET_KEY?: string;

  @IsOptional() @IsString() @Matches(/^[\w.@+-]{1,150}$/, { message: 'SUPERUSER_NAME must be 1-150 letters, digits or @.+-_' })
  SUPERUSER_NAME?: string;

  @IsOptional() @IsString()
  SUPERUSER_EMAIL?: string;

  @IsOptional() @IsString() @MinLength(8, { message: 'SUPERUSER_PASSWORD must be at least 8 characters long' })
  SUPERUSER_PASSWORD?: string;

  @IsOptional() @IsString() @Matches(/^[0-9a-f]{40}$/, { message: 'SUPERUSER_API_TOKEN must be 40 lower-case hexadecimal characters' })
  SUPERUSER_API_TOKEN?: string;

  @IsIn(['error', 'warn', 'info', 'log', 'debug', 'verbose'])
  LOG_LEVEL = 'info';

  /** Largest request body accepted, in bytes. */
  @Transform(toInt) @IsInt() @Min(1024)
  MAX_BODY_SIZE = 10 * 1024 * 1024;

  /** Largest uploaded file (an image attachment, a job's file variable), in bytes; a request body is also bounded by MAX_BODY_SIZE. */
  @Transform(toInt) @IsInt() @Min(1)
  FILE_UPLOAD_MAX_SIZE = 5 * 1024 * 1024;

  /** How long definitions (custom fields) are cached where other processes' changes go unheard (MySQL without its triggers, or a cascade there): they show within it. */
  @Transform(toInt) @IsInt() @Min(0)
  DEFINITION_CACHE_SECONDS = 2;

  /** Benchmarking aid: every response carries X-Statement-Count, the server's running count of SQL statements. */
  @Transform(toBool) @IsBoolean()
  EXPOSE_STATEMENT_COUNT = false;

  /** Days the change log keeps a record (`cleanupChangeLog` deletes older ones); 0 keeps them forever. The reference's default: 90. */
  @Transform(toInt) @IsInt() @Min(0)
  CHANGELOG_RETENTION = 90;

  /**
   * Where event notifications go (docs/architecture.md, "Events"): JSON, the reference's
   * EVENT_BROKERS: `{"<name>": {"CLASS": "syslog", "OPTIONS": {"level": "info"}, "TOPICS":
   * {"INCLUDE": ["nautobot.*"], "EXCLUDE": []}}}`. CLASS is `syslog` or a class a plugin defines.
   */
  @Transform(toJson) @Validate(EventBrokerShape)
  EVENT_BROKERS: Record<string, unknown> = {};

  /** Largest external identity message the intake endpoint accepts, in bytes. */
  @Transform(toInt) @IsInt() @Min(1024)
  IDENTITY_MAX_MESSAGE_BYTES = 64 * 1024;

  /** Upper bound, in milliseconds, on any single SQL statement a request runs (0 = none). */
  @Transform(toInt) @IsInt() @Min(0)
  STATEMENT_TIMEOUT_MS = 30000;

  /**
   * Run statements outside transactions as prepared statements (planned once per connection), on
   * every database. Off for a pooler that cannot keep them (PgBouncer in transaction mode before
   * 1.21, ProxySQL with multiplexing).
   */
  @Transform(toBool) @IsBoolean()
  PREPARED_STATEMENTS = true;

  /**
   * Remember, between requests, which user and rights an API token stands for, and the user's
   * permissions (PGlite and PostgreSQL; MySQL reads them on every request). A change this process makes applies at once;
   * one another process makes applies when PostgreSQL's notification arrives, and the cache is
   * used only while this process's own notifications come back within 2 seconds.
   */
  @Transform(toBool) @IsBoolean()
  CREDENTIAL_CACHE = true;

  /**
   * How many requests a user (all of their tokens and sessions together) or, unauthenticated, an
   * address may make in a period: `<count>/<period>`, DRF's form (`1000/hour`, `60/min`, `10/s`;
   * periods second, minute, hour, day). Empty: no limit. See docs/architecture.md, "Rate limits".
   */
  @Matches(RATE_FORM, { message: 'RATE_LIMIT must be <count>/<period>, e.g. 1000/hour (periods: s, sec, second, m, min, minute, h, hour, d, day), or empty' })
  RATE_LIMIT = '';

  /** Whether superusers are exempt from RATE_LIMIT (false: they are limited like everyone). */
  @Transform(toBool) @IsBoolean()
  RATE_LIMIT_EXEMPT_SUPERUSERS = false;

  /** URL schemes a webhook may use. */
  @Transform(toList) @IsIn(['http', 'https'], { each: true, message: 'WEBHOOK_ALLOWED_SCHEMES entries must be http or https' })
  WEBHOOK_ALLOWED_SCHEMES: string[] = ['http', 'https'];

  /** Host names a webhook may target even when they resolve into WEBHOOK_ADDITIONAL_BLOCKED_NETWORKS (`name`, `.domain`, `*`). */
  @Transform(toList) @IsString({ each: true }) @Matches(/^(\*|\.?[A-Za-z0-9_.:\[\]-]+)$/, { each: true, message: 'WEBHOOK_ALLOWED_HOSTS entries must be host names, ".domain" or "*"' })
  WEBHOOK_ALLOWED_HOSTS: string[] = [];

  /** Networks (CIDR) added to the built-in webhook block list (loopback, link-local, multicast, reserved). */
  @Transform(toList) @IsString({ each: true }) @Validate(Cidr, { each: true })
  WEBHOOK_ADDITIONAL_BLOCKED_NETWORKS: string[] = [];

  /** Networks (CIDR) a webhook may target whatever the block lists say, e.g. 127.0.0.1/32 for a receiver on this host. */
  @Transform(toList) @IsString({ each: true }) @Validate(Cidr, { each: true })
  WEBHOOK_ALLOWED_NETWORKS: string[] = [];

  /** Seconds a webhook receiver has to answer. */
  @Transform(toInt) @IsInt() @Min(1) @Max(300)
  WEBHOOK_TIMEOUT = 10;

  /** Attempts of a webhook delivery before it is recorded as failed (network errors, 408, 429, 5xx are retried). */
  @Transform(toInt) @IsInt() @Min(1) @Max(20)
  WEBHOOK_ATTEMPTS = 5;

  /** Seconds before a failed webhook delivery's second attempt; each later wait doubles (at most 10 minutes). */
  @Transform(toInt) @IsInt() @Min(0) @Max(600)
  WEBHOOK_RETRY_SECONDS = 10;
  /**
   * The environment variables a secret of the environment-variable provider may read: names, or
   * prefixes ending in `*` (`*` alone: any); `none`: none. netkeel's own settings (DATABASE_URL,
   * SECRET_KEY, SUPERUSER_*, ...) are never readable, whatever this says.
   */
  @Transform(toList) @IsString({ each: true }) @Matches(/^(none|\*|[A-Za-z_][A-Za-z0-9_]*\*?)$/, {
    each: true,
    message: 'SECRETS_ENV_VARIABLES entries must be variable names, prefixes ending in "*", "*" or "none"',
  })
  SECRETS_ENV_VARIABLES: string[] = ['NETKEEL_SECRET_*'];

  /**
   * The directory under which the text-file provider's secrets must lie (after following
   * symbolic links); empty: text-file secrets cannot be read.
   */
  @IsString() @Matches(/^(|\/.*)$/, { message: 'SECRETS_FILE_ROOT must be an absolute path (or empty: no text-file secrets)' })
  SECRETS_FILE_ROOT = '';

  /** What secrets may read of the environment netkeel started with (set by loadSettings; see secret-environment.ts). */
  declare secretEnvironment?: SecretEnvironment;

  /**
   * Run queued jobs in this process (a worker polling the job queue kept in the database; any
   * number of instances may run one). false: this instance only enqueues.
   */
  @Transform(toBool) @IsBoolean()
  JOBS_WORKER = true;

  /** How many jobs the worker runs at once. */
  @Transform(toInt) @IsInt() @Min(1) @Max(64)
  JOBS_CONCURRENCY = 2;

  /** How often (milliseconds) the worker looks for queued jobs and due schedules. */
  @Transform(toInt) @IsInt() @Min(50) @Max(3_600_000)
  JOBS_POLL_INTERVAL_MS = 1000;
}

export class SettingsError extends Error {}

const KNOWN = Object.keys(new Settings());
const OPTIONAL = ['DATABASE_URL', 'SECRET_KEY', 'SUPERUSER_NAME', 'SUPERUSER_EMAIL', 'SUPERUSER_PASSWORD', 'SUPERUSER_API_TOKEN'];
/** The name of every environment variable netkeel reads. */
export const SETTING_NAMES: readonly string[] = [...KNOWN, ...OPTIONAL];

/** Reads and validates the settings from an environment map; throws naming each bad variable. */
export function loadSettings(env: Record<string, string | undefined> = process.env): Settings {
  const raw: Record<string, unknown> = {};
  for (const key of SETTING_NAMES) {
    const v = env[key];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  const settings = plainToInstance(Settings, raw, { exposeDefaultValues: true });
  const errors = validateSync(settings, { forbidUnknownValues: false });
  if (errors.length) {
    const lines = errors.map((e) => `${e.property}: ${problems(e.constraints ?? {}).join('; ')} (got ${shown(e.property, raw[e.property])})`);
    throw new SettingsError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  // The password, token and e-mail are the named superuser's: without a name they would be ignored.
  const orphan = (['SUPERUSER_PASSWORD', 'SUPERUSER_API_TOKEN', 'SUPERUSER_EMAIL'] as const).find((k) => settings[k]);
  if (orphan && !settings.SUPERUSER_NAME) {
    throw new SettingsError(`Invalid configuration:\n  SUPERUSER_NAME: required when ${orphan} is set`);
  }
  settings.secretEnvironment = new SecretEnvironment(env, settings.SECRETS_ENV_VARIABLES, SETTING_NAMES);
  return settings;
}

/** A value of the wrong type fails its range checks too: only the type is said (PORT=abc: "must be an integer number"). */
const TYPE_CHECKS = ['isInt', 'isBoolean', 'isString'];
function problems(constraints: Record<string, string>): string[] {
  const type = TYPE_CHECKS.find((k) => constraints[k]);
  return type ? [constraints[type]] : Object.values(constraints);
}

/** Settings whose values are secrets (a broker's OPTIONS may hold a password): an error names them and never shows them. */
const SECRETS = new Set(['SECRET_KEY', 'SUPERUSER_PASSWORD', 'SUPERUSER_API_TOKEN', 'EVENT_BROKERS']);

/** A setting's value as an error message may show it: secrets hidden, a URL's password masked. */
export function shown(name: string, value: unknown): string {
  if (SECRETS.has(name)) return 'a value that is not shown';
  if (name === 'DATABASE_URL' && typeof value === 'string') return JSON.stringify(maskUrl(value));
  return JSON.stringify(value);
}

/**
 * A database URL with its password replaced by `***`, also when it does not parse as a URL
 * (`postgres//user:pw@host`, a password holding an unencoded `@` or `/`): whatever lies between
 * the first `:` after the scheme and the last `@`.
 */
export function maskUrl(url: string): string {
  const at = url.lastIndexOf('@');
  const colon = url.indexOf(':', /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0].length ?? 0);
  return colon >= 0 && colon < at ? `${url.slice(0, colon + 1)}***${url.slice(at)}` : url;
}

export type DatabaseKind = 'pglite' | 'postgres' | 'mysql';

export function databaseKind(settings: Settings): DatabaseKind {
  if (!settings.DATABASE_URL) return 'pglite';
  return /^(mysql|mariadb):/.test(settings.DATABASE_URL) ? 'mysql' : 'postgres';
}
