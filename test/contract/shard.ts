import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { ALL_RESOURCES } from '../../src/app.module';
import { runContracts } from '../../src/core/testing/contract/run';
import { SHARDS } from '../../src/core/testing/contract/shards';
import type { Kind } from '../../src/database/test-servers';
import { FIXTURES } from '../fixtures';

const NAME = /^(pglite|postgres|mysql)\.(\d+)\.e2e-spec\.[jt]s$/;

/**
 * The contract shard a suite file names (`<kind>.<n>.e2e-spec.ts`): its models on its database,
 * on a server of its own (see runContracts and shardOf). The first shard of each kind checks that
 * this folder holds a suite for every shard of every kind, so that no model goes untested.
 */
export function contractShard(file: string): void {
  const match = NAME.exec(basename(file));
  if (!match) throw new Error(`${basename(file)} does not name a contract shard (<kind>.<n>.e2e-spec.ts)`);
  const [, kind, n] = match;
  runContracts(kind as Kind, FIXTURES, ALL_RESOURCES, Number(n));
  if (n !== '1') return;
  it(`has a suite for each of the ${SHARDS} shards of every database`, () => {
    const ext = file.slice(-3);
    const expected = ['mysql', 'pglite', 'postgres'].flatMap((k) => Array.from({ length: SHARDS }, (_, i) => `${k}.${i + 1}.e2e-spec${ext}`)).sort();
    expect(readdirSync(dirname(file)).filter((f) => f.endsWith(`.e2e-spec${ext}`)).sort()).toEqual(expected);
  });
}
