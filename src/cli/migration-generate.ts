import 'reflect-metadata';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ALL_EXTENSIONS, ALL_RESOURCES, ALL_TABLES, APPS } from '../app.module';
import { loadPlugins } from '../core/plugins/loader';
import { ResourceRegistry } from '../core/resource/registry';
import { openDatabase } from '../database/data-source.factory';
import { Db } from '../database/db';
import { compareSchema, describeDiff } from '../database/schema/compare';
import { Ddl, Statements } from '../database/schema/ddl';
import { readSchema } from '../database/schema/introspect';
import { migrationSource } from './migration-source';
import { allMigrations, ownedMigrations } from '../database/migrations';

/**
 * `npm run migration:generate -- <name>`: compares the schema the committed migrations make
 * (applied to a fresh embedded database) with the one the declarations say, and writes the
 * difference as a migration for each dialect under migrations/, registered in their index.ts.
 * Review it and commit it; the drift test checks the result on every database.
 */
async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  const opt = (flag: string) => {
    const i = rest.indexOf(flag);
    return i === -1 ? undefined : rest[i + 1];
  };
  const pluginPath = opt('--plugin');
  const out = opt('--out');
  if (!name || !/^[a-z][a-z0-9-]*$/.test(name) || (pluginPath && !out) || (!pluginPath && rest.length)) {
    console.error('usage: npm run migration:generate -- <name>   (lower-case words joined by hyphens, e.g. add-manufacturers)');
    console.error('       npm run migration:generate -- <name> --plugin <built plugin folder or package> --out <plugin source>/migrations');
    process.exit(2);
  }
  // A plugin's migration: the difference its declarations make, after netkeel's migrations and its own.
  const plugins = pluginPath ? loadPlugins([pluginPath], APPS.map((a) => a.label)) : [];
  const apps = [...APPS, ...plugins.flatMap((p) => p.apps)];
  const registry = new ResourceRegistry(
    pluginPath ? apps.flatMap((a) => a.resources) : ALL_RESOURCES,
    pluginPath ? apps.flatMap((a) => a.tables ?? []) : ALL_TABLES,
    pluginPath ? apps.flatMap((a) => a.extensions ?? []) : ALL_EXTENSIONS,
  );
  registry.seal();
  const migrations = allMigrations(ownedMigrations(plugins));
  const open = await openDatabase({ kind: 'pglite', dataDir: 'memory://' }, { migrations });
  let diffLines: string[];
  let statements: Record<'postgres' | 'mysql', Statements>;
  try {
    await open.dataSource.runMigrations({ transaction: 'each' });
    const diff = compareSchema(registry.tables(), await readSchema(new Db(open.dataSource, open.dialect)), 'postgres');
    diffLines = describeDiff(diff);
    statements = { postgres: new Ddl('postgres').render(diff), mysql: new Ddl('mysql').render(diff) };
  } finally {
    await open.close();
  }
  if (!diffLines.length) {
    console.log('The migrations already make the declared schema: nothing to generate.');
    return;
  }
  const root = out ? resolve(out) : resolve(__dirname, '..', '..', '..', 'migrations');
  const stamp = nextTimestamp(resolve(__dirname, '..', '..', '..', 'migrations'), out ? root : undefined);
  const className = `${name.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}${stamp}`;
  for (const dialect of ['postgres', 'mysql'] as const) {
    const file = `${stamp}-${name}`;
    mkdirSync(join(root, dialect), { recursive: true });
    writeFileSync(join(root, dialect, `${file}.ts`), migrationSource(className, dialect, diffLines, statements[dialect]));
    if (out) console.log(`wrote ${join(root, dialect, file)}.ts: add ${className} to the plugin's migrations.${dialect}`);
    else {
      register(join(root, dialect, 'index.ts'), className, file);
      console.log(`wrote migrations/${dialect}/${file}.ts`);
    }
  }
  console.log(diffLines.map((l) => `  ${l}`).join('\n'));
}

/** After every committed migration (netkeel's, and a plugin's), and not before now. */
function nextTimestamp(root: string, pluginRoot?: string): number {
  const dirs = [root, ...(pluginRoot ? [pluginRoot] : [])].flatMap((r) => ['postgres', 'mysql'].map((d) => join(r, d))).filter((d) => existsSync(d));
  const stamps = dirs.flatMap((d) => readdirSync(d).map((f) => Number(/^(\d+)-/.exec(f)?.[1] ?? 0)));
  return Math.max(Date.now(), ...stamps.map((s) => s + 1));
}

/** Adds the migration to its dialect's list, oldest first. */
function register(index: string, className: string, file: string): void {
  let text = readFileSync(index, 'utf8');
  const lastImport = text.lastIndexOf('\nimport ');
  const end = text.indexOf('\n', lastImport + 1);
  text = `${text.slice(0, end + 1)}import { ${className} } from './${file}';\n${text.slice(end + 1)}`;
  const close = text.lastIndexOf('];');
  const before = text.slice(0, close).replace(/,?\s*$/, '');
  text = `${before},\n  ${className},\n${text.slice(close)}`;
  writeFileSync(index, text);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
