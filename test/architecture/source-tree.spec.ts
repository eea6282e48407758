import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from '../../src/core/testing/repo-root';

/**
 * The shape of the source tree (DESIGN.md): files stay small, the layers import downwards only
 * (core never imports an app, the database layer never imports the engine), and no module
 * imports itself back through others, whether for values or for types.
 */
const ROOT = REPO_ROOT;
const MAX_LINES = 400;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

const sources = [...files(join(ROOT, 'src')), ...files(join(ROOT, 'migrations'))];
const rel = (p: string) => relative(ROOT, p);

/** Relative imports and re-exports of a file, resolved to files of the tree (`runtime`: not those of types only). */
function imports(file: string, runtime: boolean): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(import|export)\s(type\s)?[^;]*?from\s+'(\.[^']+)'/gms)) {
    if (runtime && m[2]) continue;
    const base = resolve(dirname(file), m[3]);
    const target = [`${base}.ts`, join(base, 'index.ts')].find((c) => sources.includes(c));
    if (target) out.push(target);
  }
  return out;
}

const graph = new Map(sources.map((f) => [f, imports(f, false)]));
const runtimeGraph = new Map(sources.map((f) => [f, imports(f, true)]));

/**
 * The declaration types of the engine refer to each other (a field names its target definition,
 * a definition its fields and the request context its hooks see, the context the registry of
 * definitions): TypeScript erases these references, so they make no loop at run time. Only they
 * may refer to each other in a circle, and only for types.
 */
const DECLARATION_TYPES = ['src/core/context.ts', 'src/core/resource/definition.ts', 'src/core/resource/extension.ts', 'src/core/resource/fields.ts', 'src/core/resource/mixin.ts', 'src/core/resource/registry.ts', 'src/core/resource/storage.ts'];

/** Tarjan's strongly connected components of more than one file: the import circles. */
function circles(g: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(rel(w));
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) visit(v);
  return out;
}

describe('source tree', () => {
  it(`keeps every file under ${MAX_LINES} lines`, () => {
    const long = [...sources, ...files(join(ROOT, 'test')), ...files(join(ROOT, 'bench'))]
      .map((f) => ({ file: rel(f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('imports downwards only: core and the database layer name no app, the database layer names no engine', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      const from = rel(file);
      for (const t of targets.map(rel)) {
        if (from.startsWith('src/core/') && t.startsWith('src/modules/')) wrong.push(`${from} -> ${t}`);
        if (from.startsWith('src/database/') && (t.startsWith('src/core/') || t.startsWith('src/modules/'))) wrong.push(`${from} -> ${t}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no import circle at run time', () => {
    expect(circles(runtimeGraph)).toEqual([]);
  });

  it('has no import circle of types either, but among the declaration types of the engine', () => {
    expect(circles(graph).filter((c) => !c.every((f) => DECLARATION_TYPES.includes(f)))).toEqual([]);
  });
});
