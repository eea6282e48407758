import { ALL_RESOURCES } from '../../src/app.module';
import { runContracts } from '../../src/core/testing/contract/run';
import { FIXTURES } from '../fixtures';

// Every model's contract on pglite: one server for all of them (see runContracts).
runContracts('pglite', FIXTURES, ALL_RESOURCES);
