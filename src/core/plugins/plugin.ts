import type { EventBrokerClass } from '../events/broker';
import { AppInput, defineApp, NetkeelApp } from '../resource/app';

/** What `/api/plugins/installed-plugins/` (and `/api/apps/installed-apps/`) shows of a plugin. */
export interface PluginMeta {
  /** Its package: the npm package name (or folder name) it is installed as. */
  package: string;
  /** Human name (`name` in the listing). */
  verboseName: string;
  version: string;
  description?: string;
  author?: string;
  authorEmail?: string;
  /** URL segment of its API: `/api/plugins/<baseUrl>/` (default: its first app's label). */
  baseUrl?: string;
}

/** A TypeORM migration class (its name ends in a 13-digit timestamp; it sorts with netkeel's). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type MigrationClass = Function;

export interface PluginInput extends PluginMeta {
  /** Its apps, declared as netkeel's own are (`defineApp`'s input: label, resources, tables, controllers, providers, extensions). */
  apps: AppInput[];
  /** Its committed migrations, one set per dialect, applied at start-up with netkeel's. */
  migrations?: { postgres: MigrationClass[]; mysql: MigrationClass[] };
  /** Event broker classes EVENT_BROKERS may name by these names (as its `CLASS`), beside `syslog`. */
  eventBrokers?: Record<string, EventBrokerClass>;
}

export interface NetkeelPlugin extends PluginMeta {
  baseUrl: string;
  apps: NetkeelApp[];
  migrations: { postgres: MigrationClass[]; mysql: MigrationClass[] };
  eventBrokers?: Record<string, EventBrokerClass>;
}

/** Marks a loaded module's export as a plugin (a plugin may be loaded through another copy of this file). */
export const PLUGIN_MARK = 'netkeel.plugin';

const BASE_URL = /^[a-z][a-z0-9-]*$/;

/**
 * A netkeel plugin: apps declared exactly like the built-in ones, whose models' routes live
 * under `/api/plugins/<baseUrl>/`, with their migrations. A package or folder listed in PLUGINS
 * exports it as `plugin` (or as its default export).
 */
export function definePlugin(input: PluginInput): NetkeelPlugin {
  if (!input.apps.length) throw new Error(`plugin ${input.package}: declares no app`);
  const baseUrl = input.baseUrl ?? input.apps[0].label;
  if (!BASE_URL.test(baseUrl)) throw new Error(`plugin ${input.package}: baseUrl ${JSON.stringify(baseUrl)} must be lower-case letters, digits and hyphens`);
  for (const app of input.apps) {
    for (const def of app.resources) def.apiBase = `plugins/${baseUrl}`;
  }
  return Object.assign(
    {
      ...input,
      baseUrl,
      apps: input.apps.map(defineApp),
      migrations: input.migrations ?? { postgres: [], mysql: [] },
    },
    { [PLUGIN_MARK]: true },
  );
}
