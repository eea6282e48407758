import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The policy of a page that runs scripts: files of this origin only (its own start-up and the
 * packages' builds), no inline script, requests to this origin only, never in a frame. Inline
 * styles are allowed: the packages' UIs set style attributes.
 */
export const SCRIPTED_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * A file of an installed npm package, by its path in the package (`swagger-ui-dist/swagger-ui.css`):
 * the browser builds that pages load from this origin, never from a CDN. Packages' `exports` do
 * not list those builds, so the package's folder is found from its main module.
 */
export function packageFile(path: string): string {
  const name = path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0];
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json')) || (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name) {
    if (dirname(dir) === dir) throw new Error(`The package ${name} is not installed`);
    dir = dirname(dir);
  }
  return readFileSync(join(dir, path.slice(name.length + 1)), 'utf8');
}

/** A file a page loads: its type, and how to read it (once: the server then keeps it). */
export interface PageFile {
  type: 'application/javascript' | 'text/css';
  load: () => string;
}

/** The files of a set of pages, read on first use; `get` answers null for a name it does not have. */
export function pageFiles(files: Record<string, PageFile>): (name: string) => { type: string; text: string } | null {
  const loaded = new Map<string, string>();
  return (name) => {
    if (!Object.hasOwn(files, name)) return null;
    let text = loaded.get(name);
    if (text === undefined) loaded.set(name, (text = files[name].load()));
    return { type: files[name].type, text };
  };
}
