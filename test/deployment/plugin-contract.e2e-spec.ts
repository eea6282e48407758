import { runContracts } from '../../src/core/testing/contract/run';
import { noteResource } from '../../src/modules/extras/resources/note.resource';
import { FIXTURES } from '../fixtures';
import { exampleFixtures } from '../../plugins/example/fixtures';
import { plugin } from '../../plugins/example';
import { localPath } from '../../src/core/testing/repo-root';

// The model contract over the example plugin's models, with the plugin loaded (PLUGINS), on every
// database of the run: a plugin's models are held to what netkeel's own are. Notes join the
// sections over every model (the plugin's model takes notes: the leak checks follow them).
const resources = plugin.apps.flatMap((a) => a.resources);
for (const kind of ['pglite', 'postgres', 'mysql'] as const) {
  runContracts(kind, { ...FIXTURES, ...exampleFixtures }, resources, 0, { env: { PLUGINS: localPath(__dirname, '../../plugins/example') }, crossModels: [noteResource] });
}
