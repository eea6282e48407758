import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/core/testing/repo-root';
import { serverNodeOptions } from '../../src/core/testing/server-command';

/**
 * The server runs with the same node options wherever it is started: `npm start` (package.json,
 * the one place they are written), the image's CMD, and the suites and benchmarks (which read
 * them from package.json). A heap limit keeps V8 from growing the heap 4x between collections, and
 * semi-spaces of 8 MB (not 16) keep the young generation's share of the peak RSS down.
 */
describe('how the server is started', () => {
  it('npm start runs node with a heap limit of 1 GB and semi-spaces of 8 MB', () => {
    expect(serverNodeOptions()).toEqual(['--max-old-space-size=1024', '--max-semi-space-size=8']);
  });

  it('the image runs the server as npm start does', () => {
    const cmd = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').split('\n').filter((l) => l.startsWith('CMD '));
    expect(cmd.map((l) => JSON.parse(l.slice(4)))).toEqual([['node', ...serverNodeOptions(), 'dist/src/main.js']]);
  });
});
