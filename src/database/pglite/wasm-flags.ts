import { setFlagsFromString } from 'node:v8';

/**
 * PGlite's PostgreSQL is a ~10 MB WebAssembly module. V8 compiles it at once with its baseline
 * compiler (Liftoff), then again, function by function as they get hot, with its optimizing one
 * (TurboFan) in background threads. On a 2-core machine that second compilation took most of a
 * start's CPU, and its code and compiler memory were ~200 MB of the server's peak RSS under the
 * benchmark's load (507 -> 302 MB with this and a 16 MB page cache; docs/performance.md, session
 * 36). Liftoff's code is slower where PGlite computes much (a 1,000-row page ~40 %, a detail
 * ~15 %). The server compiles WebAssembly with Liftoff only unless PGLITE_WASM_TIER_UP is set, the
 * command-line tool (short-lived) always: a process-wide V8 flag, set at their start, before
 * PGlite's module is compiled (netkeel runs no other WebAssembly). The test runner's workers,
 * which open PGlite hundreds of times and run it for minutes, keep V8's default tiering.
 */
export function compileWasmWithLiftoffOnly(): void {
  setFlagsFromString('--liftoff-only');
}
