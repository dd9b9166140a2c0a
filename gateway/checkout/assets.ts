import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { setSecurityHeaders } from './http';
import type { AssetUrls } from './page';

/**
 * The page's own script, stylesheet and network logos, read once from ./assets at startup (no CDN,
 * no third-party request, works offline). The logos are simple marks drawn for this page.
 */
interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
}

export const ASSET_DIR = path.join(__dirname, 'assets');
const FILES: Readonly<Record<string, string>> = {
  'checkout.js': 'text/javascript; charset=utf-8',
  'checkout.css': 'text/css; charset=utf-8',
  'net-trc20.svg': 'image/svg+xml',
  'net-bep20.svg': 'image/svg+xml',
  'net-ton.svg': 'image/svg+xml',
  'net-polygon.svg': 'image/svg+xml',
  'net-arbitrum.svg': 'image/svg+xml',
  'net-solana.svg': 'image/svg+xml',
};

/** Network code -> its logo's file. */
const LOGO_FILES: Readonly<Record<string, string>> = {
  TRC20: 'net-trc20.svg',
  BEP20: 'net-bep20.svg',
  TON: 'net-ton.svg',
  POLYGON: 'net-polygon.svg',
  ARBITRUM: 'net-arbitrum.svg',
  SOLANA: 'net-solana.svg',
};

export class CheckoutAssets {
  readonly #assets = new Map<string, Asset>();
  #urls: AssetUrls | undefined;

  constructor(dir: string = ASSET_DIR) {
    for (const [name, contentType] of Object.entries(FILES)) {
      const body = fs.readFileSync(path.join(dir, name));
      this.#assets.set(name, { body, contentType, etag: createHash('sha256').update(body).digest('hex').slice(0, 16) });
    }
  }

  /** `/pay/assets/<name>?v=<hash>`: a changed file gets a new URL, so the long cache is safe. */
  urls(): AssetUrls {
    if (this.#urls) return this.#urls;
    const url = (name: string) => `/pay/assets/${name}?v=${this.#assets.get(name)!.etag}`;
    const logos = Object.fromEntries(Object.entries(LOGO_FILES).map(([code, file]) => [code, url(file)]));
    this.#urls = { script: url('checkout.js'), style: url('checkout.css'), logos };
    return this.#urls;
  }

  /** Serves `name` (GET/HEAD); false when there is no such asset. */
  serve(name: string, req: IncomingMessage, res: ServerResponse): boolean {
    const asset = Object.hasOwn(FILES, name) ? this.#assets.get(name) : undefined;
    if (asset === undefined) return false;
    const etag = `"${asset.etag}"`;
    setSecurityHeaders(res);
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'public, max-age=86400');
    if (req.headers['if-none-match'] === etag) {
      res.statusCode = 304;
      res.end();
      return true;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', asset.contentType);
    res.setHeader('Content-Length', asset.body.length);
    res.end(asset.body);
    return true;
  }
}
