import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ALL_RESOURCES } from '../../src/app.module';
import { REPO_ROOT } from '../../src/core/testing/repo-root';

/**
 * The read path is scoped by construction (DESIGN rule 2; docs/architecture.md, "Reads"): a
 * statement names a model's table only through `visibleRows` (core/resource/query/scope.ts: the
 * rows the requester may see for an action, the scope inside every clause they render) or
 * `unscoped` (core/resource/query/rows.ts: every row, said where it is used). A model added
 * later is read through the same two doors, so no caller has to remember its scope.
 */
const ROOT = REPO_ROOT;
const rel = (p: string) => relative(ROOT, p);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return p.endsWith('.ts') && !p.endsWith('.spec.ts') ? [p] : [];
  });
}

const sources = files(join(ROOT, 'src')).map((p) => ({ file: rel(p), text: readFileSync(p, 'utf8') }));

const ROWS = 'src/core/resource/query/rows.ts';
const SCOPE = 'src/core/resource/query/scope.ts';
/** What declares the schema: tables as storage, not rows to read (and the schema layer's own `table`, no definition's). */
const SCHEMA = ['src/core/resource/storage.ts', 'src/core/resource/registry.ts', 'src/database/schema/'];

/**
 * Receivers of `.table` that are not a definition: a many-to-many field's link table (`through`,
 * `th`: its rows are links, what they link is read through rows), and `unscoped(...)`'s FROM item.
 */
const LINK_OR_UNSCOPED = /^(through|th|unscoped\(.*\))$/;

/** The places in a file's text where a definition's table is named (`def.table`, `f.target().table`). */
function tableNames(text: string): { line: number; text: string }[] {
  const code = text.replace(/from\s+'[^']*'/g, "''"); // module paths (`./throttle.table`) are no table
  return [...code.matchAll(/([A-Za-z_$][\w$]*(?:\([^()]*\))?)\s*\??\.\s*table\b/g)]
    .filter((m) => !LINK_OR_UNSCOPED.test(m[1]))
    .map((m) => ({ line: code.slice(0, m.index).split('\n').length, text: m[0] }));
}

describe('scoped reads', () => {
  it('recognises a table named directly', () => {
    const found = tableNames("sql`SELECT * FROM ${ident(def.table)} t JOIN ${ident(f.target().table)} x JOIN ${ident(f.through.table)} l`; unscoped(def).table; import { T } from './throttle.table';");
    expect(found.map((f) => f.text)).toEqual(['def.table', 'target().table']);
  });

  it('names a model table only through visibleRows or unscoped', () => {
    const wrong: string[] = [];
    for (const { file, text } of sources) {
      if (file === ROWS || SCHEMA.some((s) => file.startsWith(s))) continue;
      for (const t of tableNames(text)) wrong.push(`${file}:${t.line}: ${t.text}`);
    }
    expect(wrong).toEqual([]);
  });

  it('names no model table by its name in the engine', () => {
    const tables = new Set(ALL_RESOURCES.map((d) => d.table));
    expect(tables.size).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const { file, text } of sources) {
      // The engine serves every model; its test harness (core/testing) makes fixtures, and reads nothing for a client.
      if (!file.startsWith('src/core/') || file.startsWith('src/core/testing/')) continue;
      for (const m of text.matchAll(/['"`]([a-z][a-z0-9_]*)['"`]/g)) if (tables.has(m[1])) wrong.push(`${file}: '${m[1]}'`);
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the scope inside the rows: no condition apart from them, no rows made outside the two doors', () => {
    const wrong: string[] = [];
    for (const { file, text } of sources) {
      if (file !== SCOPE && /\bscopeCondition\b/.test(text)) wrong.push(`${file}: scopeCondition`);
      if (file !== SCOPE && file !== ROWS && /\browsWithin\b/.test(text)) wrong.push(`${file}: rowsWithin`);
      if (file !== ROWS && /\bnew\s+(Rows|AllRows)\b/.test(text)) wrong.push(`${file}: new Rows`);
    }
    expect(wrong).toEqual([]);
  });
});
