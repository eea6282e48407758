import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies, minVersion } from 'semver';
import { REPO_ROOT } from '../../src/core/testing/repo-root';

/**
 * The Node versions netkeel runs on (package.json `engines`: development machines' 20.19+, the
 * image's 22.13+, and 24.11+) are versions every installed package accepts: otherwise `npm ci` prints
 * EBADENGINE and the package may use what that Node lacks. Read from package-lock.json, which is
 * what `npm ci` installs and checks.
 */
interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
  os?: string[];
  cpu?: string[];
  optional?: boolean;
}

describe('package-lock.json and the Node versions netkeel supports', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  // The first release of each line that netkeel's dependencies accept (TypeORM's own range).
  const supported = ['20.19.0', '22.13.0', '24.11.0'];

  it('package.json says 20.19+, 22.13+ and 24.11+', () => {
    expect(minVersion(pkg.engines.node)?.version).toBe('20.19.0');
    for (const v of supported) expect(satisfies(v, pkg.engines.node)).toBe(true);
    for (const v of ['20.18.0', '22.12.0', '24.10.0']) expect(satisfies(v, pkg.engines.node)).toBe(false);
  });

  it('has no package that wants another Node (npm ci prints no EBADENGINE)', () => {
    // A package only for another platform is not installed here, so npm does not check it.
    const installedHere = (e: LockEntry) =>
      (!e.os || e.os.some((o) => o === process.platform || (o.startsWith('!') && o !== `!${process.platform}`))) &&
      (!e.cpu || e.cpu.some((c) => c === process.arch || (c.startsWith('!') && c !== `!${process.arch}`)));
    const refused = Object.entries(lock.packages)
      .filter(([path, e]) => path !== '' && installedHere(e))
      .flatMap(([path, e]) => {
        const range = Array.isArray(e.engines) ? undefined : e.engines?.node;
        if (!range) return [];
        const no = supported.filter((v) => !satisfies(v, range, { includePrerelease: true }));
        return no.length ? [`${path.replace(/^.*node_modules\//, '')}@${e.version}: node ${range} (not ${no.join(', ')})`] : [];
      });
    expect(refused).toEqual([]);
  });
});
