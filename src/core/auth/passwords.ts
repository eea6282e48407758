import { createHash, createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, keylen: number, opts: object) => Promise<Buffer>;

// scrypt is memory-hard: N=2^15, r=8 costs 32 MiB per hash, which makes guessing at speed expensive.
const N = 1 << 15;
const R = 8;
const P = 1;
const KEYLEN = 32;
const MAXMEM = 64 * 1024 * 1024;

/** `scrypt$N$r$p$salt$hash` (base64), self-describing so parameters can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password.normalize('NFKC'), salt, KEYLEN, { N, r: R, p: P, maxmem: MAXMEM });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored) return false;
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash that costs the same as a real check, to answer unknown users in constant time. */
export const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/** 40 hexadecimal characters, as the reference's token keys. */
export const generateTokenKey = () => randomBytes(20).toString('hex');

/** What a token key looks like: 40 hexadecimal characters. */
export const TOKEN_KEY = /^[0-9a-fA-F]{40}$/;

/**
 * Token keys are stored only as HMAC-SHA-256(server secret, SHA-256(key)): fast, as a check on
 * every request must be (the keys carry 160 random bits, so no salt is needed), and a stolen
 * table cannot be checked offline without the secret. Keyed over the SHA-256 so that rows stored
 * before the secret was used (plain SHA-256) upgrade in place: `keyLegacyTokenHash`.
 */
export const hashTokenKey = (secret: string, key: string) => keyLegacyTokenHash(secret, createHash('sha256').update(key, 'utf8').digest('hex'));

/** A stored plain SHA-256 of a key, as earlier versions kept it, turned into today's hash. */
export const keyLegacyTokenHash = (secret: string, sha256Hex: string) => createHmac('sha256', secret).update(sha256Hex, 'utf8').digest('hex');

/** Identifies a secret without revealing it: stored to catch a start with a different secret. */
export const secretFingerprint = (secret: string) => createHmac('sha256', secret).update('netkeel secret fingerprint', 'utf8').digest('hex');
