import type { IncomingMessage } from 'node:http';
import { clientKeyFor, parseTrustedProxies } from './client-key';

const req = (remoteAddress: string | undefined, xff?: string | string[]): IncomingMessage =>
  ({ socket: { remoteAddress }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } }) as unknown as IncomingMessage;

describe('clientKeyFor (TRUSTED_PROXY)', () => {
  const key = clientKeyFor(parseTrustedProxies('10.0.0.0/8, 127.0.0.1, fd00::/8'));

  it('ignores X-Forwarded-For without trusted proxies, or from a peer that is not one', () => {
    expect(clientKeyFor(undefined)(req('::ffff:192.0.2.1', '198.51.100.7'))).toBe('192.0.2.1');
    expect(key(req('192.0.2.1', '198.51.100.7'))).toBe('192.0.2.1');
    expect(key(req(undefined))).toBe('unknown');
  });

  it('takes the right-most entry that is not a trusted proxy', () => {
    expect(key(req('127.0.0.1', '203.0.113.9, 198.51.100.7, 10.2.3.4'))).toBe('198.51.100.7');
    expect(key(req('::ffff:10.0.0.5', ['203.0.113.9', '198.51.100.7:51234']))).toBe('198.51.100.7'); // repeated header, port
    expect(key(req('fd00::1', '[2001:db8::7]:443, fd00::2'))).toBe('2001:db8::7');
    expect(key(req('10.0.0.5', '10.0.0.6, 10.0.0.7'))).toBe('10.0.0.6'); // all ours: the left-most
    expect(key(req('10.0.0.5', ''))).toBe('10.0.0.5');
    expect(key(req('10.0.0.5', 'garbage, 10.0.0.7'))).toBe('garbage'); // not an address: not trusted either
  });

  it('refuses a bad TRUSTED_PROXY entry, naming it', () => {
    expect(() => parseTrustedProxies('')).toThrow(/no address/);
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow(/10\.0\.0\.0\/33/);
    expect(() => parseTrustedProxies('10.0.0.1, lb.internal')).toThrow(/lb\.internal/);
    expect(() => parseTrustedProxies('10.0.0.0/8/1')).toThrow(/10\.0\.0\.0\/8\/1/);
  });
});
