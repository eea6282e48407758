import { ALL_RESOURCES } from '../../src/app.module';
import { runContracts } from '../../src/core/testing/contract/run';
import { FIXTURES } from '../fixtures';

// Every model's contract on postgres: one server for all of them (see runContracts).
runContracts('postgres', FIXTURES, ALL_RESOURCES);
