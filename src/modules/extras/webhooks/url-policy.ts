import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may send (server-side request forgery defence). The reference's policy, with
 * one addition: an operator may name networks (`WEBHOOK_ALLOWED_NETWORKS`) that pass even the
 * built-in block list, e.g. a receiver on the same host (127.0.0.1/32).
 * - the scheme must be one of `WEBHOOK_ALLOWED_SCHEMES`;
 * - an address that is loopback, link-local (cloud metadata services), multicast, unspecified,
 *   broadcast or reserved (documentation ranges, 240/4, IPv4-mapped IPv6) is refused always;
 * - one in `WEBHOOK_ADDITIONAL_BLOCKED_NETWORKS` is refused unless the host is in
 *   `WEBHOOK_ALLOWED_HOSTS` (`name`, `.domain` for the domain and its subdomains, `*`).
 * On save a literal address is checked; on send every address the name resolves to is, and the
 * connection is pinned to the one checked (no second lookup an attacker's DNS could answer).
 */
export interface WebhookUrlPolicy {
  schemes: string[];
  allowedHosts: string[];
  blockedNetworks: string[];
  allowedNetworks: string[];
}

export class WebhookUrlError extends Error {}

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

const BUILTIN_V4 = ['unspecified', 'broadcast', 'multicast', 'linkLocal', 'loopback', 'reserved'];
const BUILTIN_V6 = ['unspecified', 'linkLocal', 'multicast', 'loopback', 'reserved', 'ipv4Mapped', 'rfc6145', 'discard'];
/** Documentation, benchmarking and relay ranges the reference counts as reserved but ipaddr.js names otherwise. */
const EXTRA_RESERVED_V4 = ['0.0.0.0/8', '192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '192.88.99.0/24', '233.252.0.0/24', '240.0.0.0/4'].map((c) => ipaddr.parseCIDR(c));

function inNetwork(addr: Addr, cidr: string): boolean {
  try {
    const [net, bits] = ipaddr.parseCIDR(cidr.includes('/') ? cidr : `${cidr}/${ipaddr.parse(cidr).kind() === 'ipv4' ? 32 : 128}`);
    return net.kind() === addr.kind() && addr.match([net, bits] as never);
  } catch {
    return false;
  }
}

function builtinBlocked(addr: Addr): boolean {
  const range = addr.range();
  if (addr.kind() === 'ipv4') return BUILTIN_V4.includes(range) || EXTRA_RESERVED_V4.some((n) => n[0].kind() === 'ipv4' && addr.match(n as never));
  return BUILTIN_V6.includes(range);
}

export function hostAllowListed(host: string, allowList: string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (!h) return false;
  return allowList.some((raw) => {
    const p = raw.toLowerCase().replace(/\.$/, '');
    if (p === '*') return true;
    if (p.startsWith('.')) return h === p.slice(1) || h.endsWith(p);
    return h === p;
  });
}

function check(host: string, addr: Addr, policy: WebhookUrlPolicy, allowListed: boolean): void {
  if (policy.allowedNetworks.some((n) => inNetwork(addr, n))) return;
  if (builtinBlocked(addr)) throw new WebhookUrlError(`Webhook URL host '${host}' is not permitted (resolves to a reserved/loopback/link-local address).`);
  if (!allowListed && policy.blockedNetworks.some((n) => inNetwork(addr, n))) {
    throw new WebhookUrlError(`Webhook URL host '${host}' is not permitted. Add the host to WEBHOOK_ALLOWED_HOSTS if this target is intentional.`);
  }
}

function literal(host: string): Addr | null {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (!ipaddr.isValid(bare)) return null;
  // Only canonical literals: "0x7f.1" or "2130706433" are not addresses here (URL parsing
  // already turned the forms WHATWG knows into dotted quads).
  if (!(ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare))) return null;
  return ipaddr.parse(bare);
}

function parse(url: string, policy: WebhookUrlPolicy): URL {
  if (!url) throw new WebhookUrlError('Webhook URL is required.');
  let u: URL;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme && !policy.schemes.map((s) => s.toLowerCase()).includes(scheme)) {
    throw new WebhookUrlError(`Webhook URL scheme '${scheme}' is not permitted; allowed schemes are: ${policy.schemes.join(', ')}.`);
  }
  try {
    u = new URL(url);
  } catch {
    throw new WebhookUrlError('Enter a valid URL.');
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || u.username || u.password) throw new WebhookUrlError('Enter a valid URL.');
  if (!u.hostname) throw new WebhookUrlError('Webhook URL must include a host.');
  return u;
}

/** Save-time check: scheme, syntax and, for a literal address, the block lists. */
export function validateWebhookUrlFormat(url: string, policy: WebhookUrlPolicy): void {
  const u = parse(url, policy);
  const addr = literal(u.hostname);
  if (addr) check(u.hostname, addr, policy, hostAllowListed(u.hostname, policy.allowedHosts));
}

/** Send-time check: as on save, and every address the host resolves to; returns the address to connect to. */
export async function resolveWebhookUrl(url: string, policy: WebhookUrlPolicy, resolve = lookup): Promise<{ url: URL; address: string; family: 4 | 6 }> {
  const u = parse(url, policy);
  const allowListed = hostAllowListed(u.hostname, policy.allowedHosts);
  const lit = literal(u.hostname);
  if (lit) {
    check(u.hostname, lit, policy, allowListed);
    return { url: u, address: lit.toString(), family: lit.kind() === 'ipv4' ? 4 : 6 };
  }
  let infos: { address: string; family: number }[];
  try {
    infos = await resolve(u.hostname, { all: true, verbatim: true });
  } catch {
    throw new WebhookUrlError(`Unable to resolve webhook host '${u.hostname}'.`);
  }
  if (!infos.length) throw new WebhookUrlError(`Unable to resolve webhook host '${u.hostname}'.`);
  for (const i of infos) check(u.hostname, ipaddr.parse(i.address), policy, allowListed);
  return { url: u, address: infos[0].address, family: infos[0].family === 6 ? 6 : 4 };
}
