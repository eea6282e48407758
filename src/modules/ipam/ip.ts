import ipaddr from 'ipaddr.js';

/**
 * IP arithmetic for IPAM. Parsing and formatting are ipaddr.js's; what it lacks (masks and
 * sizes as integers, ranges to CIDR blocks) works on BigInt.
 *
 * Storage (DESIGN rule 10): every address is 16 bytes, an IPv4 address in its IPv4-mapped
 * IPv6 form (::ffff:a.b.c.d). Byte order equals numeric order on both databases, and every
 * query also names the `ip_version`, so IPv4 10.0.0.1 and IPv6 ::ffff:10.0.0.1 never mix.
 */
export type IpVersion = 4 | 6;

export const BITS: Record<IpVersion, number> = { 4: 32, 6: 128 };

/** An address or network as the API gives it: family, address bytes (16) and mask length. */
export interface Cidr {
  version: IpVersion;
  /** The address as written (host bits kept), 16 bytes. */
  address: Buffer;
  length: number;
}

/** A network as stored: first and last address (16 bytes each), length and family. */
export interface Network {
  version: IpVersion;
  network: Buffer;
  broadcast: Buffer;
  length: number;
}

const V4_MAPPED = 0xffffn << 32n;
const ALL = (1n << 128n) - 1n;

export class IpError extends Error {}

/** Parses a bare address; strict: dotted-quad IPv4 only, no zone ids. Null when invalid. */
export function parseAddress(text: string): { version: IpVersion; bytes: Buffer } | null {
  const s = text.trim();
  if (!s || s.includes('%')) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(s)) return { version: 4, bytes: mapped(ipaddr.IPv4.parse(s).toByteArray()) };
  if (s.includes(':') && ipaddr.IPv6.isValid(s)) return { version: 6, bytes: Buffer.from(ipaddr.IPv6.parse(s).toByteArray()) };
  return null;
}

/** Parses `a.b.c.d/len`, `x::y/len` or a bare address (a host route: /32 or /128). */
export function parseCidr(text: unknown): Cidr {
  if (typeof text !== 'string') throw new IpError(`Invalid IP address format: ${String(text)}`);
  const s = text.trim();
  const parts = s.split('/');
  const addr = parts.length <= 2 ? parseAddress(parts[0]) : null;
  if (!addr) throw new IpError(`Invalid IP address format: ${text}`);
  const bits = BITS[addr.version];
  let length = bits;
  if (parts.length === 2) {
    if (!/^\d{1,3}$/.test(parts[1]) || Number(parts[1]) > bits) throw new IpError(`Invalid IP address format: ${text}`);
    length = Number(parts[1]);
  }
  return { version: addr.version, address: addr.bytes, length };
}

/** The network a CIDR names: host bits cleared, and its last address. */
export function networkOf(c: Cidr): Network {
  return { version: c.version, network: maskBytes(c.version, c.address, c.length), broadcast: lastBytes(c.version, c.address, c.length), length: c.length };
}

export function parseNetwork(text: unknown): Network {
  return networkOf(parseCidr(text));
}

/** Bytes -> integer within the family (IPv4: 0 .. 2^32-1). */
export function toBigInt(version: IpVersion, bytes: Buffer): bigint {
  const n = BigInt('0x' + (bytes.length ? bytes.toString('hex') : '0'));
  return version === 4 ? n & 0xffffffffn : n;
}

/** Integer within the family -> the 16 stored bytes. */
export function fromBigInt(version: IpVersion, n: bigint): Buffer {
  const v = version === 4 ? V4_MAPPED | (n & 0xffffffffn) : n & ALL;
  return Buffer.from(v.toString(16).padStart(32, '0'), 'hex');
}

const hostMask = (version: IpVersion, length: number) => (1n << BigInt(BITS[version] - length)) - 1n;

export function maskBytes(version: IpVersion, bytes: Buffer, length: number): Buffer {
  return fromBigInt(version, toBigInt(version, bytes) & ~hostMask(version, length));
}

export function lastBytes(version: IpVersion, bytes: Buffer, length: number): Buffer {
  return fromBigInt(version, toBigInt(version, bytes) | hostMask(version, length));
}

/** Number of addresses in a network of this length. */
export const sizeOf = (version: IpVersion, length: number): bigint => 1n << BigInt(BITS[version] - length);

/** The address as text: dotted quad, or RFC 5952 IPv6 with IPv4-mapped addresses as ::ffff:a.b.c.d. */
export function formatAddress(version: IpVersion, bytes: Buffer): string {
  if (version === 4) return ipaddr.fromByteArray([...bytes.subarray(12, 16)]).toString();
  const v6 = ipaddr.fromByteArray([...bytes]) as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? `::ffff:${v6.toIPv4Address().toString()}` : v6.toString();
}

export const formatCidr = (version: IpVersion, bytes: Buffer, length: number) => `${formatAddress(version, bytes)}/${length}`;

/** The networks of every length in [from, to] that contain the address (the candidates of a longest-prefix match). */
export function supernets(version: IpVersion, bytes: Buffer, from: number, to: number): { length: number; network: Buffer }[] {
  const out: { length: number; network: Buffer }[] = [];
  for (let l = Math.max(0, from); l <= Math.min(to, BITS[version]); l++) out.push({ length: l, network: maskBytes(version, bytes, l) });
  return out;
}

/** The fewest CIDR blocks that cover [start, end] exactly (integers within the family). */
export function rangeToCidrs(version: IpVersion, start: bigint, end: bigint): { network: bigint; length: number }[] {
  const bits = BITS[version];
  const out: { network: bigint; length: number }[] = [];
  let cur = start;
  while (cur <= end) {
    let length = bits;
    // Grow the block while it stays aligned at `cur` and inside the range.
    while (length > 0) {
      const size = 1n << BigInt(bits - length + 1);
      if (cur % size !== 0n || cur + size - 1n > end) break;
      length--;
    }
    out.push({ network: cur, length });
    cur += 1n << BigInt(bits - length);
  }
  return out;
}

function mapped(v4: number[]): Buffer {
  return Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4]);
}

export const hex = (b: Buffer) => b.toString('hex');
