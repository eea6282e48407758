import { readFileSync } from 'node:fs';
import { REPO_ROOT } from '../../src/core/testing/repo-root';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { loadSettings, SETTING_NAMES } from '../../src/config/settings';

/**
 * docker-compose.yml, which cannot run here (no container daemon): it parses, netkeel waits for
 * a healthy PostgreSQL with a volume, and every variable it gives netkeel is a setting netkeel
 * reads and accepts, with the values the file gives it.
 */
interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
}

describe('docker-compose.yml', () => {
  const root = REPO_ROOT;
  const compose = load(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
  const { netkeel, postgres } = compose.services;
  /** What an operator's .env gives, for the `${VAR:?...}` the file requires. */
  const dotEnv: Record<string, string> = { POSTGRES_PASSWORD: 'database-password', SECRET_KEY: 'a-secret-key-of-at-least-32-characters' };
  const interpolate = (v: string) =>
    v.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, rest?: string) => dotEnv[name] ?? (op === '-' ? (rest ?? '') : ''));

  it('builds netkeel from the Dockerfile and starts it once PostgreSQL is healthy, its data in a volume', () => {
    expect(netkeel.build).toBe('.');
    expect(netkeel.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(postgres.image).toMatch(/^postgres:(1[5-9]|[2-9]\d)/);
    expect(postgres.healthcheck?.test.join(' ')).toContain('pg_isready');
    const [volume, path] = postgres.volumes![0].split(':');
    expect(path).toBe('/var/lib/postgresql/data');
    expect(Object.keys(compose.volumes)).toContain(volume);
    expect(netkeel.ports).toEqual(['${NETKEEL_PORT:-8080}:8080']);
  });

  it('gives netkeel only settings it reads, valid as given, and the database the postgres service makes', () => {
    const env = Object.fromEntries(Object.entries(netkeel.environment!).map(([k, v]) => [k, interpolate(String(v))]));
    expect(Object.keys(env).filter((k) => !SETTING_NAMES.includes(k))).toEqual([]);
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['DATABASE_URL', 'SECRET_KEY', 'ALLOWED_HOSTS']));
    const settings = loadSettings(env);
    const url = new URL(settings.DATABASE_URL!);
    const db = postgres.environment!;
    expect([url.protocol, url.hostname, url.port, url.pathname, url.username, url.password]).toEqual([
      'postgres:',
      'postgres',
      '5432',
      `/${db.POSTGRES_DB}`,
      db.POSTGRES_USER,
      interpolate(db.POSTGRES_PASSWORD),
    ]);
    expect(settings.ALLOWED_HOSTS).toEqual(['localhost', '127.0.0.1']);
  });
});
