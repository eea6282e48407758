import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ALL_EXTENSIONS, ALL_RESOURCES, ALL_TABLES } from '../../src/app.module';
import { RequestContext } from '../../src/core/context';
import { objectType, ResourceDefinition } from '../../src/core/resource/definition';
import { FilterCompiler } from '../../src/core/resource/query/filter-compiler';
import { Rows, rowsWithin } from '../../src/core/resource/query/rows';
import * as scope from '../../src/core/resource/query/scope';
import { ResourceRegistry } from '../../src/core/resource/registry';
import type { Executor } from '../../src/database/db';
import { postgresDialect } from '../../src/database/dialect';
import { TRUE, type Sql } from '../../src/database/sql';
import { REPO_ROOT } from '../../src/core/testing/repo-root';

/**
 * A custom filter reads another model only through `h.rows(target, alias)` (the rows the
 * requester may view), never by its table's name (docs/adding-a-model.md): otherwise a
 * constrained user filters through objects hidden from them. Every custom filter of every model
 * (its own, its mixins', its extensions') is compiled here with values of every shape, and
 * what it renders (and every statement it runs on its way) must not name a model's table: the
 * rows a filter may read render under another name here, so only a table named directly shows.
 */
const registry = new ResourceRegistry(ALL_RESOURCES, ALL_TABLES, ALL_EXTENSIONS);
registry.seal();
const MODEL_TABLES = new Set(registry.all().map((d) => d.table));
const UUID = '6f1c2d3e-4a5b-4c6d-8e7f-901234567890';
/** Values of every shape a filter may take: an id, a name, a boolean, a number, an address, a network, a MAC. */
const SAMPLES: unknown[][] = [[UUID], ['name'], ['true'], ['false'], ['1'], ['4'], ['10.0.0.1'], ['10.0.0.0/24'], ['2001:db8::1'], ['00:11:22:33:44:55'], ['active'], ['wireless'], ['0123456789abcdef0123456789abcdef01234567']];

/** The rows a filter may read (`h.rows`, or `visibleRows` itself), under a name no table has. */
const scoped = async (def: ResourceDefinition, alias: string): Promise<Rows> => rowsWithin({ ...def, table: `scoped:${def.table}` }, alias, TRUE);

function compiler(statements: string[]): FilterCompiler {
  const dialect = postgresDialect;
  const exec = {
    dialect,
    // Every lookup finds what it looks for (so that a filter goes on to build its condition).
    query: async (q: Sql) => {
      const { text, params } = dialect.render(q);
      statements.push(text);
      return params.flat().map((p) => ({ id: typeof p === 'string' && /^[0-9a-f-]{36}$/.test(p) ? p : UUID, n: p, name: p, slug: p }));
    },
    execute: async () => 0,
    inTransaction: false,
  } as unknown as Executor;
  const ctx = new RequestContext(
    exec as never,
    { STRICT_FILTERING: true, SECRET_KEY: 'a-secret-key-for-the-filter-sweep-only-0123456789' } as never,
    registry,
    { constraints: async () => null },
    { user: null, via: null, writeEnabled: false },
    '2.4',
    'http://x',
  );
  return new FilterCompiler(ctx, exec, scoped);
}

beforeAll(() => {
  // A filter may also read through the door itself (query/scope.ts), or compile another model's filters.
  jest.spyOn(scope, 'visibleRows').mockImplementation((_ctx, _exec, def, alias) => scoped(def, alias));
  jest.spyOn(scope, 'filterCompiler').mockImplementation((ctx, exec) => new FilterCompiler(ctx, exec, scoped));
});

/**
 * What a filter may read by its table: a tree's own shape (`descendantIds`: hidden objects
 * between the given ones and their descendants do not cut the subtree, as for every tree
 * foreign key), and what is an object's own data under another model (an external identity's
 * roles are its last message, which its `message` and `effective_status` show whole).
 */
const OWN_DATA: Record<string, string[]> = {
  'identity.externalidentity': ['identity_externalidentityrole'],
};
const treeWalk = (statement: string) => statement.startsWith('WITH RECURSIVE');

/** The model tables a statement names directly. */
const named = (text: string) => [...text.matchAll(/"([a-z][a-z0-9_]*)"/g)].map((m) => m[1]).filter((t) => MODEL_TABLES.has(t));

interface Case {
  type: string;
  key: string;
}

const cases: Case[] = registry.all().flatMap((def: ResourceDefinition) =>
  Object.entries(def.filters ?? {}).flatMap(([name, f]) => [name, ...(f.lookups ?? []).filter((l) => l && l !== 'n').map((l) => `${name}__${l}`)].map((key) => ({ type: objectType(def), key }))),
);

describe('scoped filters', () => {
  it('compiles custom filters of many models', () => {
    expect(cases.length).toBeGreaterThan(50);
  });

  it('sees a table named directly', async () => {
    expect(named('SELECT 1 FROM "dcim_device" d JOIN "scoped:dcim_module" m')).toEqual(['dcim_device']);
  });

  it.each(cases)('$type ?$key reads other models only through the rows the requester may view', async ({ type, key }) => {
    const def = registry.get(type)!;
    const found = new Set<string>();
    let compiled = 0;
    for (const values of SAMPLES) {
      const statements: string[] = [];
      const params = new Map([[key, values.map(String)]]);
      try {
        const cond = await compiler(statements).fromQuery(def, params, 't');
        statements.push(postgresDialect.render(cond).text);
        compiled++;
      } catch {
        // A value of the wrong shape (a 400): another sample fits.
      }
      for (const s of statements) for (const t of named(s)) if (!treeWalk(s) && !(OWN_DATA[type] ?? []).includes(t)) found.add(t);
    }
    expect(compiled).toBeGreaterThan(0);
    expect([...found]).toEqual([]);
  });

  it('names no model table in the text of a filter compile (the branches no sample reaches)', () => {
    expect(compileBodies("compile: async (v, _l, h) => sql`x IN (SELECT id FROM ${ident('dcim_module')})`, other: 1").map((b) => named(quoted(b)))).toEqual([['dcim_module']]);
    const wrong: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src', 'modules'))) {
      for (const body of compileBodies(readFileSync(file, 'utf8'))) for (const t of named(quoted(body))) wrong.push(`${relative(ROOT, file)}: '${t}'`);
    }
    expect(wrong).toEqual([]);
  });
});

const ROOT = REPO_ROOT;
const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') && !p.endsWith('.spec.ts') ? [p] : [];
  });
/** String literals as the statement text would quote them. */
const quoted = (text: string) => text.replace(/'([a-z][a-z0-9_]*)'/g, '"$1"');

/** The text of every `compile` function in a source: from the name to the end of its body (braces balanced, or the arrow's expression). */
function compileBodies(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\bcompile\s*[:(]/g)) {
    let depth = 0;
    let i = m.index! + m[0].length;
    let started = false;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '(' || c === '{' || c === '[') depth++, (started = true);
      else if (c === ')' || c === '}' || c === ']') {
        depth--;
        if (depth < 0 || (started && depth === 0 && text[i] === '}')) break;
      } else if (depth === 0 && started && (c === ',' || c === ';')) break;
    }
    out.push(text.slice(m.index, i + 1));
  }
  return out;
}

