import { objectType, ResourceDefinition } from '../../resource/definition';

/** How many suites the contract is split into per database kind (test/contract/<kind>.<n>.e2e-spec.ts, n = 1..SHARDS). */
export const SHARDS = 4;

/**
 * A model's share of the contract's time, estimated from its definition: a fixed part (the read,
 * write, CSV and permission sections) and a part per field (garbage in every field and filter, the
 * filter and leak contracts walk the fields).
 */
const weight = (d: ResourceDefinition) => 12 + Object.keys(d.fields).length;

/**
 * The models of shard `n` (1-based) of `count`: every model in exactly one shard, the shards as
 * even as the weights allow (heaviest first, each to the lightest shard so far; ties by object
 * type), each shard in registration order. A function of the registry alone, so every run and
 * every database splits the same way.
 */
export function shardOf(resources: ResourceDefinition[], n: number, count = SHARDS): ResourceDefinition[] {
  if (!Number.isInteger(n) || n < 1 || n > count) throw new Error(`no contract shard ${n} of ${count}`);
  const load = new Array<number>(count).fill(0);
  const home = new Map<ResourceDefinition, number>();
  const byWeight = [...resources].sort((a, b) => weight(b) - weight(a) || (objectType(a) < objectType(b) ? -1 : 1));
  for (const d of byWeight) {
    const lightest = load.indexOf(Math.min(...load));
    home.set(d, lightest + 1);
    load[lightest] += weight(d);
  }
  return resources.filter((d) => home.get(d) === n);
}
