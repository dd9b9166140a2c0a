import { Resvg } from '@resvg/resvg-js';
import jsQR from 'jsqr';
import QRCode from 'qrcode';
import { PAYMENT_QR_OPTIONS, PaymentQrCache, paymentQrCached, paymentQrSvg, renderPaymentQr } from './payment-qr';

/** Payment links of each family as the chain codecs write them (DESIGN.md, QR codes and payment links). */
const LINKS = {
  POLYGON: 'ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=0x8ba1f109551bD432803012645Ac136ddd64DBA72&uint256=10100000',
  BEP20: 'ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=0x8ba1f109551bD432803012645Ac136ddd64DBA72&uint256=10100000000000000001',
  TRC20: 'tron:TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&amount=10.1',
  TON: 'ton://transfer/UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG?jetton=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs&amount=10100000&text=K7M2QX9P',
  SOLANA: 'solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM?amount=10.1&spl-token=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p',
};

/** What a phone camera does: draw the SVG as pixels (resvg), then find and read the code in them (jsQR). */
function scan(svg: string): string | null {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: 300 } }).render();
  return jsQR(new Uint8ClampedArray(image.pixels), image.width, image.height)?.data ?? null;
}

describe('payment link QR codes', () => {
  it.each(Object.entries(LINKS))('%s: the SVG is what the qrcode package draws, and it scans back to the link', async (_network, link) => {
    const svg = await paymentQrSvg(link);
    expect(svg).toBe(await QRCode.toString([{ data: Buffer.from(link, 'utf8'), mode: 'byte' }], { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 \d+ \d+"/);
    expect(scan(svg)).toBe(link);
  });

  it('a scan of some other code does not pass for the link (the check can fail)', async () => {
    const other = await QRCode.toString([{ data: Buffer.from(`${LINKS.TON}0`, 'utf8'), mode: 'byte' }], PAYMENT_QR_OPTIONS);
    expect(scan(other)).toBe(`${LINKS.TON}0`);
    expect(scan(other)).not.toBe(LINKS.TON);
  });

  it("the shared cache keeps a link's SVG after a read, not after a creation (keep: false)", async () => {
    const link = `${LINKS.SOLANA}&memo=cache-test`;
    const created = await paymentQrSvg(link, { keep: false });
    expect(paymentQrCached(link)).toBe(false);
    expect(await paymentQrSvg(link)).toBe(created);
    expect(paymentQrCached(link)).toBe(true);
    expect(await renderPaymentQr(link)).toBe(created);
  });
});

describe('PaymentQrCache', () => {
  /** A cache over a counting renderer. */
  function counting(maxEntries: number) {
    const rendered: string[] = [];
    const cache = new PaymentQrCache(async (link) => {
      rendered.push(link);
      if (link === 'bad') throw new Error('too long for a QR code');
      return `<svg>${link}</svg>`;
    }, maxEntries);
    return { cache, rendered };
  }

  it('draws a link once; reads while it is being drawn share that drawing', async () => {
    const { cache, rendered } = counting(10);
    const [a, b] = await Promise.all([cache.get('a'), cache.get('a')]);
    expect(a).toBe('<svg>a</svg>');
    expect(b).toBe(a);
    expect(await cache.get('a')).toBe(a);
    expect(rendered).toEqual(['a']);
  });

  it('holds at most maxEntries, dropping the least recently used', async () => {
    const { cache, rendered } = counting(2);
    await cache.get('a');
    await cache.get('b');
    await cache.get('a'); // a is now the most recently used
    await cache.get('c'); // drops b
    expect(cache.size).toBe(2);
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, true]);
    await cache.get('b');
    expect(rendered).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.has('a')).toBe(false);
  });

  it('keep: false answers from the cache but adds nothing', async () => {
    const { cache, rendered } = counting(10);
    expect(await cache.get('a', { keep: false })).toBe('<svg>a</svg>');
    expect(cache.size).toBe(0);
    await cache.get('a');
    expect(await cache.get('a', { keep: false })).toBe('<svg>a</svg>');
    expect(rendered).toEqual(['a', 'a']);
  });

  it('a failed drawing is not kept: the next read tries again', async () => {
    const { cache, rendered } = counting(10);
    await expect(cache.get('bad')).rejects.toThrow('too long');
    expect(cache.has('bad')).toBe(false);
    await expect(cache.get('bad')).rejects.toThrow('too long');
    expect(rendered).toEqual(['bad', 'bad']);
  });
});
