import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * The repository's root (where tsconfig.json is), whether the code runs as TypeScript from the
 * tree or compiled from dist/ (as the test suites do: jest.config.js).
 */
export const REPO_ROOT = ((): string => {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'tsconfig.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no tsconfig.json above ${__dirname}`);
  }
})();

/**
 * `path` relative to the directory `from` (a caller's `__dirname`), as a `./`-relative path from
 * the working directory: the form PLUGINS takes. Running compiled, it names the compiled copy
 * (dist/plugins/example), so the modules it loads are the ones the caller loaded.
 */
export const localPath = (from: string, path: string): string => `./${relative(process.cwd(), join(from, path))}`;
