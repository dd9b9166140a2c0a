import { createHmac } from 'node:crypto';
import { verifyHmac } from './hmac';

const sign = (secret: string, body: string): string => createHmac('sha256', secret).update(body).digest('hex');

describe('verifyHmac', () => {
  it('accepts the signature of the exact body and nothing else, bodies and empty bodies alike', () => {
    for (const body of ['', '{"amount":"10"}']) {
      const good = sign('s3cret', body);
      // Twice: the empty body's signature is kept after the first check; the answer must not change.
      for (let round = 0; round < 2; round++) {
        expect(verifyHmac('s3cret', Buffer.from(body), good)).toBe(true);
        expect(verifyHmac('s3cret', Buffer.from(body), ` ${good.toUpperCase()} `)).toBe(true);
        expect(verifyHmac('s3cret', Buffer.from(body), sign('other', body))).toBe(false);
        expect(verifyHmac('s3cret', Buffer.from(body), sign('s3cret', `${body} `))).toBe(false);
        expect(verifyHmac('s3cret', Buffer.from(body), good.slice(1))).toBe(false);
        expect(verifyHmac('s3cret', Buffer.from(body), '')).toBe(false);
      }
    }
  });

  it('a rotated secret: the old secret signature of the empty body is refused, the new one accepted', () => {
    const old = sign('before-rotation', '');
    expect(verifyHmac('before-rotation', Buffer.alloc(0), old)).toBe(true);
    expect(verifyHmac('after-rotation', Buffer.alloc(0), old)).toBe(false);
    expect(verifyHmac('after-rotation', Buffer.alloc(0), sign('after-rotation', ''))).toBe(true);
  });

  it('stays right past the bound of kept empty-body signatures', () => {
    const secrets = Array.from({ length: 10_050 }, (_, i) => `secret-${i}`);
    for (const s of secrets) expect(verifyHmac(s, Buffer.alloc(0), sign(s, ''))).toBe(true);
    for (const s of [secrets[0]!, secrets[5_000]!, secrets[10_049]!]) {
      expect(verifyHmac(s, Buffer.alloc(0), sign(s, ''))).toBe(true);
      expect(verifyHmac(s, Buffer.alloc(0), sign(`${s}x`, ''))).toBe(false);
    }
  });
});
