import { formatAddress, formatCidr, fromBigInt, IpError, networkOf, parseAddress, parseCidr, parseNetwork, rangeToCidrs, sizeOf, supernets, toBigInt } from './ip';

const text = (b: Buffer, v: 4 | 6) => formatAddress(v, b);

describe('IP helpers', () => {
  it('parses IPv4 and IPv6 addresses with and without a mask', () => {
    expect(parseCidr('10.1.2.3/24')).toMatchObject({ version: 4, length: 24 });
    expect(parseCidr('10.1.2.3')).toMatchObject({ version: 4, length: 32 });
    expect(parseCidr(' 2001:db8::1/64 ')).toMatchObject({ version: 6, length: 64 });
    expect(parseCidr('2001:db8::1')).toMatchObject({ version: 6, length: 128 });
    expect(parseCidr('0.0.0.0/0')).toMatchObject({ version: 4, length: 0 });
    expect(parseCidr('::/0')).toMatchObject({ version: 6, length: 0 });
  });

  it('stores IPv4 as IPv4-mapped 16 bytes, and keeps IPv4-mapped IPv6 a separate family', () => {
    const v4 = parseCidr('10.0.0.1');
    const v6 = parseCidr('::ffff:10.0.0.1');
    expect(v4.address.toString('hex')).toBe('00000000000000000000ffff0a000001');
    expect(v6.address.equals(v4.address)).toBe(true);
    expect(v6.version).toBe(6);
    expect(formatAddress(6, v6.address)).toBe('::ffff:10.0.0.1');
    expect(formatAddress(4, v4.address)).toBe('10.0.0.1');
  });

  it.each([
    '',
    '10.0.0',
    '10.0.0.256',
    '010.0.0.1',
    '0x0a.0.0.1',
    '192.168.0.0.100/24',
    '192.168.0.0/35',
    '10.0.0.0/-1',
    '10.0.0.0/',
    '10.0.0.0/24/8',
    '2001:db8::/129',
    '1:2:3:4:5:6:7:8:9',
    'fe80::1%eth0',
    'not an address',
  ])('rejects %p', (s) => {
    expect(() => parseCidr(s)).toThrow(IpError);
    expect(() => parseCidr(s)).toThrow(`Invalid IP address format: ${s}`);
  });

  it('rejects non-strings', () => {
    expect(() => parseCidr(42)).toThrow(IpError);
    expect(parseAddress('1.2.3')).toBeNull();
  });

  it('clears host bits and finds the last address, at every edge length', () => {
    const n = (s: string) => {
      const x = parseNetwork(s);
      return `${text(x.network, x.version)}-${text(x.broadcast, x.version)}/${x.length}`;
    };
    expect(n('10.1.2.3/24')).toBe('10.1.2.0-10.1.2.255/24');
    expect(n('10.1.2.3/31')).toBe('10.1.2.2-10.1.2.3/31');
    expect(n('10.1.2.3/32')).toBe('10.1.2.3-10.1.2.3/32');
    expect(n('10.1.2.3/0')).toBe('0.0.0.0-255.255.255.255/0');
    expect(n('2001:db8::5/127')).toBe('2001:db8::4-2001:db8::5/127');
    expect(n('2001:db8::5/128')).toBe('2001:db8::5-2001:db8::5/128');
    expect(n('::1/0')).toBe('::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/0');
    expect(n('ffff::1/16')).toBe('ffff::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/16');
    expect(n('255.255.255.255/8')).toBe('255.0.0.0-255.255.255.255/8');
  });

  it('compares bytes in address order, high bytes included', () => {
    const a = parseNetwork('127.255.255.255').network;
    const b = parseNetwork('128.0.0.0').network;
    const c = parseNetwork('255.255.255.255').network;
    expect(Buffer.compare(a, b)).toBe(-1);
    expect(Buffer.compare(b, c)).toBe(-1);
    expect(Buffer.compare(parseNetwork('7fff::').network, parseNetwork('8000::').network)).toBe(-1);
  });

  it('converts to and from integers within the family', () => {
    const b = parseNetwork('10.0.0.255').network;
    expect(toBigInt(4, b)).toBe(0x0a0000ffn);
    expect(fromBigInt(4, 0x0a0000ffn).equals(b)).toBe(true);
    expect(toBigInt(6, parseNetwork('::2').network)).toBe(2n);
    expect(sizeOf(4, 24)).toBe(256n);
    expect(sizeOf(6, 0)).toBe(1n << 128n);
  });

  it('lists the supernets of an address for a longest-prefix match', () => {
    const s = supernets(4, parseNetwork('10.1.2.3').network, 0, 32);
    expect(s).toHaveLength(33);
    expect(text(s[8].network, 4)).toBe('10.0.0.0');
    expect(text(s[24].network, 4)).toBe('10.1.2.0');
    expect(supernets(6, parseNetwork('2001:db8::1').network, 0, 128)).toHaveLength(129);
  });

  it('turns ranges into the fewest CIDR blocks', () => {
    const c = (v: 4 | 6, a: string, b: string) =>
      rangeToCidrs(v, toBigInt(v, parseNetwork(a).network), toBigInt(v, parseNetwork(b).network)).map((x) => formatCidr(v, fromBigInt(v, x.network), x.length));
    expect(c(4, '10.0.0.0', '10.0.0.255')).toEqual(['10.0.0.0/24']);
    expect(c(4, '10.0.0.1', '10.0.0.6')).toEqual(['10.0.0.1/32', '10.0.0.2/31', '10.0.0.4/31', '10.0.0.6/32']);
    expect(c(4, '0.0.0.0', '255.255.255.255')).toEqual(['0.0.0.0/0']);
    expect(c(6, '::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toEqual(['::/0']);
    expect(c(6, '2001:db8::', '2001:db8::ffff')).toEqual(['2001:db8::/112']);
  });

  it('keeps host bits of an address but networkOf clears them', () => {
    const c = parseCidr('192.168.1.77/24');
    expect(formatCidr(4, c.address, c.length)).toBe('192.168.1.77/24');
    expect(formatCidr(4, networkOf(c).network, 24)).toBe('192.168.1.0/24');
  });
});
