/**
 * Preloaded (`node -r dist/bench/cpu-hook.js`) into a server the CPU benchmark profiles: V8's
 * CPU profiler started and stopped on the benchmark's word through the IPC channel, so that a
 * profile holds the measured load alone (no start-up, no warm-up), as `--cpu-prof` would write it.
 *
 *   { profile: 'start', intervalUs }  -> { profile: 'started' }
 *   { profile: 'stop', file }         -> { profile: 'written', file }  (the .cpuprofile JSON)
 *
 * With NK_PROFILE=heap the same words take a sampling heap profile instead (`.heapprofile` JSON,
 * as Chrome's DevTools read it; `.cpuprofile` in the file's name becomes `.heapprofile`): every
 * sampled allocation, those the garbage collector has since freed included, by the stack that
 * made it: where a request's garbage comes from.
 *
 * A process started without an IPC channel is left as it is.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

type Message = { profile?: 'start' | 'stop'; intervalUs?: number; file?: string };
const heap = process.env.NK_PROFILE === 'heap';

if (process.send) {
  // The channel must not keep a server alive that is told to stop.
  process.channel?.unref();
  let session: Session | null = null;
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) => session!.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))));
  process.on('message', (m: Message) => {
    if (m.profile === 'start' && !session) {
      session = new Session();
      session.connect();
      void (async () => {
        if (heap) {
          await post('HeapProfiler.enable');
          await post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
        } else {
          await post('Profiler.enable');
          await post('Profiler.setSamplingInterval', { interval: m.intervalUs ?? 200 });
          await post('Profiler.start');
        }
        process.send!({ profile: 'started' });
      })();
    } else if (m.profile === 'stop' && session) {
      void (async () => {
        const { profile } = await post(heap ? 'HeapProfiler.stopSampling' : 'Profiler.stop');
        session!.disconnect();
        session = null;
        const file = heap ? m.file!.replace(/\.cpuprofile$/, '') + '.heapprofile' : m.file!;
        writeFileSync(file, JSON.stringify(profile));
        process.send!({ profile: 'written', file });
      })();
    }
  });
}
