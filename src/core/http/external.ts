import ipaddr from 'ipaddr.js';
import type { IncomingMessage } from 'node:http';

/**
 * How a client outside sees this service: the scheme and host it used, and the path prefix under
 * which netkeel's routes live for it. Computed once per request (pipeline middleware), from the
 * request itself, or, when the connection comes from a trusted proxy (TRUST_PROXY), from what the
 * proxy says (`Forwarded`, `X-Forwarded-Proto`/`-Host`/`-Prefix`), then BASE_PATH. Every URL,
 * redirect and cookie path a response carries is built from it.
 *
 * Inside the application, paths are app-relative: the pipeline strips BASE_PATH from the request
 * URL, so routes, `req.path` and `req.originalUrl` never carry it. Outside = origin + prefix + path.
 */
export interface ExternalView {
  proto: 'http' | 'https';
  /** Host (and port) as the client addressed it. */
  host: string;
  /** `<proto>://<host>`. */
  origin: string;
  /** The forwarded prefix (a proxy that strips one) followed by BASE_PATH; '' or `/a/b` (no trailing slash). */
  prefix: string;
  /** Whether the connection came from a trusted proxy (its headers were read). */
  viaProxy: boolean;
}

/** Names of address ranges TRUST_PROXY accepts, as Express's `trust proxy` setting names them. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** A TRUST_PROXY entry: a range name, an address or a CIDR block (or `none`). */
export function isTrustEntry(entry: string): boolean {
  if (entry === 'none' || entry in NAMED_RANGES) return true;
  try {
    if (entry.includes('/')) ipaddr.parseCIDR(entry);
    else ipaddr.parse(entry);
    return ipaddr.isValid(entry.split('/')[0]);
  } catch {
    return false;
  }
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** How many peers' answers a trust test keeps. */
const KNOWN_PEERS = 1024;

/** Compiles TRUST_PROXY into a test of a peer's address. */
export function trustTest(entries: string[]): (address: string | undefined) => boolean {
  const ranges: Range[] = [];
  for (const e of entries) {
    if (e === 'none') continue;
    for (const r of NAMED_RANGES[e] ?? [e]) {
      if (r.includes('/')) ranges.push(ipaddr.parseCIDR(r));
      else {
        const a = ipaddr.parse(r);
        ranges.push([a, a.kind() === 'ipv4' ? 32 : 128]);
      }
    }
  }
  if (!ranges.length) return () => false;
  const test = (address: string) => {
    if (!ipaddr.isValid(address)) return false;
    let a = ipaddr.parse(address);
    if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
    return ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));
  };
  // Every request asks about its connection's peer: the answers for the last peers seen are kept
  // (parsing an address is a few µs of a small request's CPU); at most KNOWN_PEERS of them.
  const known = new Map<string, boolean>();
  return (address) => {
    if (!address) return false;
    let trusted = known.get(address);
    if (trusted === undefined) {
      trusted = test(address);
      if (known.size >= KNOWN_PEERS) known.clear();
      known.set(address, trusted);
    }
    return trusted;
  };
}

/** The express `trust proxy` value for the same list (used for `req.ip` behind a proxy). */
export function expressTrust(entries: string[]): string[] | false {
  const list = entries.filter((e) => e !== 'none');
  return list.length ? list : false;
}

/** `/a/b/` -> `/a/b`, `/` or '' -> ''. Undefined when it is not a plain path. */
export function normalizePrefix(value: string): string | undefined {
  const v = value.trim();
  if (v === '' || v === '/') return '';
  if (!/^(\/[A-Za-z0-9._~-]+)+\/?$/.test(v) || /(^|\/)\.\.?(\/|$)/.test(v)) return undefined;
  return v.replace(/\/$/, '');
}

/** A proxy header that does not parse: the request is refused (400) rather than answered with URLs built from guesses. */
export class ForwardedHeaderError extends Error {}

const first = (v: string | string[] | undefined): string | undefined => {
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined) return undefined;
  const part = s.split(',')[0].trim();
  return part === '' ? undefined : part;
};

/**
 * RFC 7239 `Forwarded`: the parameters of its first element (the one the proxy nearest the client
 * added), names lower-cased, quoted values unquoted.
 */
export function parseForwarded(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  // The first element ends at the first comma outside quotes.
  let element = '';
  let quoted = false;
  for (const c of header) {
    if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) break;
    element += c;
  }
  for (const pair of element.split(';')) {
    const i = pair.indexOf('=');
    if (i <= 0) continue;
    const name = pair.slice(0, i).trim().toLowerCase();
    let value = pair.slice(i + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    if (!(name in out)) out[name] = value;
  }
  return out;
}

export interface ExternalOptions {
  trusted: (address: string | undefined) => boolean;
  /** Normalized BASE_PATH ('' or `/a/b`). */
  basePath: string;
}

/** Computes the external view of a request (see ExternalView). Throws ForwardedHeaderError for a trusted proxy's malformed header. */
export function externalView(req: IncomingMessage, opts: ExternalOptions, encrypted: boolean): ExternalView {
  const h = req.headers;
  let proto: string = encrypted ? 'https' : 'http';
  let host = h.host ?? '';
  let forwardedPrefix = '';
  const viaProxy = opts.trusted(req.socket?.remoteAddress);
  if (viaProxy) {
    const fwd = typeof h.forwarded === 'string' && h.forwarded.trim() ? parseForwarded(h.forwarded) : {};
    const p = fwd.proto ?? first(h['x-forwarded-proto']);
    if (p !== undefined) {
      const lower = p.toLowerCase();
      if (lower !== 'http' && lower !== 'https') throw new ForwardedHeaderError(`Invalid forwarded protocol: ${JSON.stringify(p.slice(0, 50))}.`);
      proto = lower;
    }
    const fh = fwd.host ?? first(h['x-forwarded-host']);
    if (fh !== undefined) host = fh;
    const px = first(h['x-forwarded-prefix']);
    if (px !== undefined) {
      const n = normalizePrefix(px);
      if (n === undefined) throw new ForwardedHeaderError(`Invalid X-Forwarded-Prefix header: ${JSON.stringify(px.slice(0, 100))}.`);
      forwardedPrefix = n;
    }
  }
  return { proto: proto as 'http' | 'https', host, origin: `${proto}://${host}`, prefix: forwardedPrefix + opts.basePath, viaProxy };
}
