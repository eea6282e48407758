import { ServerResponse } from 'node:http';

/** The headers a response will carry, as name/value pairs, while no code has used the header API. */
const PENDING = Symbol('pendingHeaders');

type Pending = ServerResponse & { [PENDING]?: string[] };

const native = ServerResponse.prototype;
const nativeWriteHead = native.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;

/**
 * Sets a response header the way `res.setHeader` does (a later value of the same name replaces
 * the earlier one, in its place), but, while no code has used the response's header API, keeps
 * it in a list that `writeHead` writes with the status line at once.
 *
 * Every response carries a dozen headers (security headers, request id, API version, `Vary`,
 * `Allow`, ...). Set one by one, each is validated and lower-cased into the response's header
 * map, and the map is walked again and merged with the last ones when the head is written.
 * Written as one list of pairs, Node renders them in one pass.
 */
export function presetHeader(res: ServerResponse, name: string, value: string): void {
  const r = res as Pending;
  let list = r[PENDING];
  if (list === undefined) {
    // Not yet pending (the first) or already set as headers: a list only while no header was set.
    if (native.getHeaderNames.call(res).length) return void native.setHeader.call(res, name, value);
    list = r[PENDING] = [];
  }
  const lower = name.toLowerCase();
  for (let i = 0; i < list.length; i += 2) {
    if (list[i].toLowerCase() === lower) {
      list[i + 1] = value;
      return;
    }
  }
  list.push(name, value);
}

/** Sets the pending headers as ordinary headers, before any use of the header API sees the response. */
function settle(res: Pending): void {
  const list = res[PENDING];
  if (!list) return;
  res[PENDING] = undefined;
  for (let i = 0; i < list.length; i += 2) native.setHeader.call(res, list[i], list[i + 1]);
}

/**
 * Makes the header API of every response of an express application (its `response` prototype)
 * see pending headers as set: any reading, setting or removing of a header sets them first, in
 * their order, so that a response whose code uses the header API is as if they had been set one
 * by one. Only a response whose head is written with nothing but pending headers and a list of
 * pairs (`writeHead(status, [name, value, ...])`, what JSON replies do) takes the one pass.
 */
export function installPresetHeaders(proto: ServerResponse): void {
  const methods = native as unknown as Record<string, (this: ServerResponse, a?: unknown, b?: unknown) => unknown>;
  for (const name of ['setHeader', 'setHeaders', 'appendHeader', 'getHeader', 'getHeaderNames', 'getRawHeaderNames', 'getHeaders', 'hasHeader', 'removeHeader']) {
    const original = methods[name];
    Object.defineProperty(proto, name, {
      configurable: true,
      writable: true,
      // Two parameters at most (no rest array: a getHeader is called a few times per response).
      value: function (this: Pending, a?: unknown, b?: unknown) {
        if (this[PENDING]) settle(this);
        return original.call(this, a, b);
      },
    });
  }
  const writeHead = function (this: Pending, statusCode: number, reason?: unknown, headers?: unknown) {
    const list = this[PENDING];
    if (list) {
      const pairs = typeof reason === 'string' ? headers : reason;
      if ((pairs === undefined || (Array.isArray(pairs) && typeof pairs[0] !== 'object')) && !native.getHeaderNames.call(this).length) {
        this[PENDING] = undefined;
        const all = pairs ? merged(list, pairs as string[]) : list;
        return typeof reason === 'string' ? nativeWriteHead.call(this, statusCode, reason, all) : nativeWriteHead.call(this, statusCode, all);
      }
      settle(this);
    }
    return nativeWriteHead.call(this, statusCode, reason, headers);
  };
  Object.defineProperty(proto, 'writeHead', { configurable: true, writable: true, value: writeHead });
  Object.defineProperty(proto, 'writeHeader', { configurable: true, writable: true, value: writeHead });
}

/** The pending pairs followed by `pairs`, which replace those of the same name (as writeHead's headers replace set ones). */
function merged(list: string[], pairs: string[]): string[] {
  const out = list;
  for (let i = 0; i < pairs.length; i += 2) {
    const name = pairs[i];
    for (let j = 0; j < out.length; j += 2) {
      if (out[j].length === name.length && out[j].toLowerCase() === name.toLowerCase()) {
        out.splice(j, 2);
        break;
      }
    }
  }
  for (const p of pairs) out.push(p);
  return out;
}

/** `res.getHeader` without setting pending headers: for names that are never pending (Content-Type, ETag). */
export function existingHeader(res: ServerResponse, name: string): ReturnType<ServerResponse['getHeader']> {
  return native.getHeader.call(res, name);
}
