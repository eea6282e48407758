import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full garbage collection, run once the server listens. Starting (modules, definitions, the
 * migrations' check, the OpenAPI document) leaves garbage behind and V8's young generation grown
 * to its largest (`--max-semi-space-size`, 16 MB committed for two semi-spaces), which a server
 * then idle keeps: 130 -> 116 MB of RSS at rest on PostgreSQL, and a peak under the benchmark's
 * load ~5 MB lower (docs/performance.md, session 51). It takes ~35 ms, before the first request.
 *
 * Node exposes `gc` only under `--expose-gc`: the flag is set for as long as it takes to read the
 * function from a fresh context, then unset, so no other code (a plugin's) finds a `gc` global.
 */
export function collectStartupGarbage(): void {
  setFlagsFromString('--expose-gc');
  let gc: () => void;
  try {
    gc = runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  gc();
}
