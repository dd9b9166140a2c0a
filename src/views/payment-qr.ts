import QRCode from 'qrcode';

/**
 * How every payment link's QR code is drawn, through the `qrcode` package's public API: error
 * correction M keeps it readable from a screen or a printout; a quiet zone of 2 modules (the page
 * draws the code on white, so it needs no more). The mask is the package's own choice (the lowest
 * penalty, as ISO/IEC 18004 asks).
 */
export const PAYMENT_QR_OPTIONS: QRCode.QRCodeToStringOptions = { type: 'svg', errorCorrectionLevel: 'M', margin: 2 };

/**
 * The SVG of a payment link's QR code, uncached. The link is given as one byte-mode segment
 * (qrcode's documented manual segments): a payment link is a lowercase URL, which byte mode
 * encodes anyway, and the package's automatic segmentation (a shortest-path search over mixed
 * modes) cost about half of each drawing (~1.1 ms against ~0.57 ms per link here).
 */
export function renderPaymentQr(link: string): Promise<string> {
  return QRCode.toString([{ data: Buffer.from(link, 'utf8'), mode: 'byte' }], PAYMENT_QR_OPTIONS);
}

/**
 * SVGs by payment link, least recently used first (a Map keeps insertion order; a hit moves its
 * entry to the end). A link holds the address, the token and the exact amount, so one link has one
 * QR code: the cache can never show a stale one. Promises are kept, so reads that arrive while a
 * code is being drawn share it; a failed render is dropped and tried again next time.
 */
export class PaymentQrCache {
  readonly #entries = new Map<string, Promise<string>>();

  constructor(
    private readonly render: (link: string) => Promise<string>,
    private readonly maxEntries: number,
  ) {}

  /**
   * `keep: false` uses a cached SVG but does not add one (the response to a creation): each new
   * invoice's SVG (~3.5 KB) would otherwise live in the cache long enough to reach V8's old
   * generation and die there, thousands of invoices later. At 2,000 creations a second that was
   * most of the daemon's old-generation garbage, followed by mark-compact stalls of 150-450 ms
   * (measured, scenarios 1-2 of the bench). An invoice's first read (the checkout page, a poll)
   * renders it again and keeps it.
   */
  get(link: string, options: { keep?: boolean } = {}): Promise<string> {
    const hit = this.#entries.get(link);
    if (hit !== undefined) {
      this.#entries.delete(link);
      this.#entries.set(link, hit);
      return hit;
    }
    const svg = this.render(link);
    if (options.keep === false) return svg;
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(link, svg);
    svg.catch(() => {
      if (this.#entries.get(link) === svg) this.#entries.delete(link);
    });
    return svg;
  }

  has(link: string): boolean {
    return this.#entries.has(link);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** ~20,000 SVGs of ~3.5 KB: the open invoices a busy merchant's buyers are looking at. */
const MAX_CACHED = 20_000;

const shared = new PaymentQrCache(renderPaymentQr, MAX_CACHED);

/** The SVG of a payment link's QR code, drawn once per link and then served from the cache. */
export function paymentQrSvg(link: string, options: { keep?: boolean } = {}): Promise<string> {
  return shared.get(link, options);
}

/** Whether the SVG of `link` is cached (tests). */
export function paymentQrCached(link: string): boolean {
  return shared.has(link);
}
