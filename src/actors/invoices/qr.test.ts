import QRCode from 'qrcode';
import SvgRenderer from 'qrcode/lib/renderer/svg-tag';
import { linkSegments, qrSvg, qrSymbol } from './qr';

/** What the `qrcode` package renders on its own (its own mask selection) from the same segments. */
const reference = (text: string) => SvgRenderer.render(QRCode.create(linkSegments(text), { errorCorrectionLevel: 'M' }), { margin: 2 });

// Payment links of every network family, of many lengths (versions) and contents (all 8 masks occur).
const links = [
  ...Array.from({ length: 60 }, (_, i) => `ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=0x${(0x1f00000 * (i + 1)).toString(16).padStart(40, '0')}&uint256=${25_755_000 + i * 7919}`),
  ...Array.from({ length: 30 }, (_, i) => `tron:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t?amount=${i + 1}.${String(i * 37).padStart(6, '0')}&address=TXYZ${i}abcdefghijkLMNOPQRSTUVWXYZ${i % 7}`),
  ...Array.from({ length: 30 }, (_, i) => `ton://transfer/UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG?jetton=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs&amount=${1000 + i * 104729}&text=${(i * 2654435761).toString(36)}`),
  ...Array.from({ length: 30 }, (_, i) => `solana:${'9'.repeat(i % 5)}Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p${i}?amount=${i}.5&spl-token=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p`),
  'A', '0123456789', 'HELLO WORLD', 'x'.repeat(300),
];

describe('qrSvg', () => {
  it('renders exactly the symbol the qrcode package chooses (same mask, same modules)', () => {
    const masks = new Set<number>();
    for (const text of links) {
      expect(qrSvg(text)).toBe(reference(text));
      const ours = qrSymbol(text);
      const theirs = QRCode.create(linkSegments(text), { errorCorrectionLevel: 'M' });
      expect(ours.maskPattern).toBe(theirs.maskPattern);
      expect(Buffer.from(ours.modules.data).equals(Buffer.from(theirs.modules.data))).toBe(true);
      masks.add(ours.maskPattern!);
    }
    // The sample exercises the selection, not one pattern throughout.
    expect(masks.size).toBeGreaterThanOrEqual(6);
  });

  it('segments payment links into a QR version no larger than the package\'s own optimiser picks', () => {
    for (const text of links) {
      expect(qrSymbol(text).version).toBeLessThanOrEqual(QRCode.create(text, { errorCorrectionLevel: 'M' }).version);
      // The segments spell the text.
      expect(linkSegments(text).map((s) => Buffer.from(s.data as string | Uint8Array).toString('utf8')).join('')).toBe(text);
    }
  });
});
