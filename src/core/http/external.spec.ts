import type { IncomingMessage } from 'node:http';
import { expressTrust, externalView, ForwardedHeaderError, isTrustEntry, normalizePrefix, parseForwarded, trustTest } from './external';

const req = (address: string, headers: Record<string, string>) => ({ headers, socket: { remoteAddress: address } }) as unknown as IncomingMessage;

describe('TRUST_PROXY', () => {
  it('accepts addresses, CIDR blocks, range names and none; nothing else', () => {
    expect(['10.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'loopback', 'linklocal', 'uniquelocal', 'none'].every(isTrustEntry)).toBe(true);
    expect(['10.0.0.300', '10.0.0.0/33', 'proxy.example', '*', '', 'loopbacks'].some(isTrustEntry)).toBe(false);
  });

  it('matches peers by range, IPv4-mapped IPv6 addresses as IPv4', () => {
    const trusted = trustTest(['loopback', '10.1.0.0/16', '2001:db8::5']);
    expect(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '10.1.200.3', '::ffff:10.1.0.1', '2001:db8::5'].every(trusted)).toBe(true);
    expect(['10.2.0.1', '192.168.1.1', '2001:db8::6', '', undefined, 'garbage'].some(trusted)).toBe(false);
    // The same answers from the peers it keeps, and after more peers than it keeps.
    expect(['127.0.0.1', '10.2.0.1', '::ffff:10.1.0.1'].map(trusted)).toEqual([true, false, true]);
    for (let i = 0; i < 1500; i++) expect(trusted(`172.16.${i >> 8}.${i & 255}`)).toBe(false);
    expect(['127.0.0.1', '10.2.0.1', '::ffff:10.1.0.1'].map(trusted)).toEqual([true, false, true]);
    expect(trustTest(['none'])('127.0.0.1')).toBe(false);
    expect(expressTrust(['none'])).toBe(false);
    expect(expressTrust(['loopback', '10.0.0.0/8'])).toEqual(['loopback', '10.0.0.0/8']);
  });
});

describe('the external view of a request', () => {
  const opts = { trusted: trustTest(['loopback']), basePath: '' };

  it('parses the first element of Forwarded, unquoting values', () => {
    expect(parseForwarded('for=192.0.2.60;Proto=https;host="a.example:8443", proto=http;host=b')).toEqual({ for: '192.0.2.60', proto: 'https', host: 'a.example:8443' });
    expect(parseForwarded('host="x,y";proto=https')).toEqual({ host: 'x,y', proto: 'https' });
  });

  it('believes a trusted proxy, Forwarded before X-Forwarded-*, the first value of a list', () => {
    expect(externalView(req('127.0.0.1', { host: 'inner:8080', 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'nk.example, inner', 'x-forwarded-prefix': '/nk/' }), opts, false)).toEqual({
      proto: 'https', host: 'nk.example', origin: 'https://nk.example', prefix: '/nk', viaProxy: true,
    });
    expect(externalView(req('127.0.0.1', { host: 'inner', forwarded: 'proto=https;host=a.example', 'x-forwarded-host': 'b.example' }), opts, false).origin).toBe('https://a.example');
  });

  it('ignores an untrusted peer\'s headers, even malformed ones', () => {
    const v = externalView(req('192.0.2.1', { host: 'inner:8080', 'x-forwarded-proto': 'gopher', 'x-forwarded-host': 'evil', 'x-forwarded-prefix': '..', forwarded: 'host=evil' }), opts, false);
    expect(v).toEqual({ proto: 'http', host: 'inner:8080', origin: 'http://inner:8080', prefix: '', viaProxy: false });
    expect(externalView(req('192.0.2.1', { host: 'inner' }), opts, true).proto).toBe('https');
  });

  it('puts BASE_PATH after the forwarded prefix, and refuses what a trusted proxy says that cannot be right', () => {
    expect(externalView(req('::1', { host: 'h', 'x-forwarded-prefix': '/outer' }), { ...opts, basePath: '/netkeel' }, false).prefix).toBe('/outer/netkeel');
    const bad: Record<string, string>[] = [{ 'x-forwarded-proto': 'ftp' }, { 'x-forwarded-prefix': '/a/../b' }, { 'x-forwarded-prefix': 'http://evil/' }, { 'x-forwarded-prefix': '/a b' }];
    for (const h of bad) {
      expect(() => externalView(req('127.0.0.1', { host: 'h', ...h }), opts, false)).toThrow(ForwardedHeaderError);
    }
  });

  it('normalizes prefixes', () => {
    expect(['', '/', '/a', '/a/', '/a/b.c~d-e_f/'].map(normalizePrefix)).toEqual(['', '', '/a', '/a', '/a/b.c~d-e_f']);
    expect(['a', '//a', '/a//b', '/./a', '/a/..', '/a?b', '/a%2f'].map(normalizePrefix)).toEqual(Array(7).fill(undefined));
  });
});
