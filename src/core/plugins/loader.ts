import { Logger } from '@nestjs/common';
import { isAbsolute, resolve } from 'node:path';
import { NetkeelPlugin, PLUGIN_MARK } from './plugin';

export class PluginLoadError extends Error {}

/**
 * Loads the plugins PLUGINS names, in order: an npm package name (resolved as `require` does
 * from netkeel's own directory, e.g. installed next to it) or a folder (a path starting with `.`
 * or `/`, relative to the working directory) whose entry exports `plugin` (or `default`) made
 * with `definePlugin`. Two plugins may not share a package, base URL, app label or table.
 */
export function loadPlugins(names: string[], builtInApps: string[], cwd = process.cwd()): NetkeelPlugin[] {
  const plugins: NetkeelPlugin[] = [];
  const labels = new Set(builtInApps);
  const bases = new Set<string>();
  for (const name of names) {
    const isPath = name.startsWith('.') || isAbsolute(name);
    const target = isPath ? resolve(cwd, name) : name;
    if (isPath) {
      try {
        require.resolve(target);
      } catch {
        throw new PluginLoadError(`PLUGINS: ${name}: no such file or directory (${target})`);
      }
    }
    let exported: Record<string, unknown>;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      exported = require(target) as Record<string, unknown>;
    } catch (e) {
      throw new PluginLoadError(`PLUGINS: ${name} could not be loaded: ${(e as Error).message.split('\n')[0]}`);
    }
    const plugin = [exported.plugin, exported.default, (exported.default as Record<string, unknown> | undefined)?.plugin].find(
      (p): p is NetkeelPlugin => !!p && typeof p === 'object' && (p as Record<string, unknown>)[PLUGIN_MARK] === true,
    );
    if (!plugin) throw new PluginLoadError(`PLUGINS: ${name} exports no plugin (export const plugin = definePlugin({...}))`);
    if (bases.has(plugin.baseUrl)) throw new PluginLoadError(`PLUGINS: ${name}: another plugin already serves /api/plugins/${plugin.baseUrl}/`);
    bases.add(plugin.baseUrl);
    for (const app of plugin.apps) {
      if (labels.has(app.label)) throw new PluginLoadError(`PLUGINS: ${name}: app label ${app.label} is taken`);
      labels.add(app.label);
    }
    if (plugins.some((p) => p.package === plugin.package)) throw new PluginLoadError(`PLUGINS: ${plugin.package} is listed twice`);
    plugins.push(plugin);
    new Logger('Plugins').log(`Loaded ${plugin.package} ${plugin.version}: /api/plugins/${plugin.baseUrl}/`);
  }
  return plugins;
}
