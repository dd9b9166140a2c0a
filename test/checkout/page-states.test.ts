import fs from 'node:fs';
import path from 'node:path';
import QRCode from 'qrcode';
import { ASSET_DIR, CheckoutAssets } from '../../gateway/checkout/assets';
import { NETWORK_CODES } from '../../src/domain/networks';
import { Invoice, type CheckoutView } from '../../src/grpc/generated/chainpay/v1/invoices';
import { Network } from '../../src/grpc/generated/chainpay/v1/networks';
import { mailtoOf, shortReference, walletLink } from '../../gateway/checkout/links';
import { toBuyerJson, toCheckoutModel } from '../../gateway/checkout/model';
import { renderCheckoutPage } from '../../gateway/checkout/page';
import { EN, LANGUAGES } from '../../gateway/checkout/strings';

/** What each state of the page shows and hides (issue 39), on the server-rendered markup. */
const ASSETS = { script: '/pay/assets/checkout.js?v=1', style: '/pay/assets/checkout.css?v=1', logos: { TON: '/pay/assets/net-ton.svg?v=1', TRC20: '/pay/assets/net-trc20.svg?v=1' } };
const UUID = '0b5e7c1e-8f0a-4a47-9d55-3c0d2a5c9e11';
const TON_LINK = 'ton://transfer/EQabc?jetton=EQjet&amount=10100000&text=M1';
let QR = '';

beforeAll(async () => {
  QR = await QRCode.toString(TON_LINK, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
});

function view(invoice: Partial<Invoice>, extra: Partial<CheckoutView> = {}): CheckoutView {
  return {
    invoice: Invoice.fromPartial({
      uuid: UUID,
      status: 'pending',
      amount: '10',
      currency: 'USDT',
      platform_fee: '0.1',
      network_fee: '0',
      pay_amount: '10.1',
      fee_payer: 'buyer',
      received_amount: '0',
      network: 'TON',
      address: 'EQabc',
      memo: 'M1',
      required_confirmations: 5,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      ...invoice,
    }),
    networks: [
      Network.fromPartial({ code: 'TON', name: 'TON', active: true, token_decimals: 6, buyer_network_fee: '0', min_invoice: '1' }),
      Network.fromPartial({ code: 'TRC20', name: 'Tron (TRC20)', active: true, token_decimals: 6, buyer_network_fee: '0', min_invoice: '1' }),
    ],
    merchant: { display_name: 'Tea & <Co>', support_url: 'https://shop.example/help', support_email: 'help@shop.example' },
    order_id: 'A-42',
    wallet_link: TON_LINK,
    wallet_qr_svg: QR,
    payments: [],
    now: '',
    ...extra,
  };
}

const page = (v: CheckoutView, s = EN) => renderCheckoutPage(toCheckoutModel(v), s, ASSETS).value;
const PAYMENT = { tx_hash: 'abc123', amount: '10.1', confirmations: 2, status: 'confirming', explorer_url: 'https://tonviewer.com/transaction/abc123' };

describe('links the page may show', () => {
  it('takes only the four wallet schemes as the wallet link', () => {
    for (const ok of [TON_LINK, 'tron:TXyz?token=TR7&amount=1', 'ethereum:0xAb@56/transfer?address=0xCd&uint256=1', 'solana:7Xy?amount=1&spl-token=Es9']) expect(walletLink(ok)).toBe(ok);
    for (const bad of ['javascript:alert(1)', 'https://evil.example', 'data:text/html,x', 'bitcoin:1abc', 'ton://x" onclick="y', '', undefined]) expect(walletLink(bad)).toBeNull();
  });

  it('short reference, mailto', () => {
    expect(shortReference(UUID)).toBe('0B5E-7C1E');
    expect(mailtoOf('help@shop.example')).toBe('mailto:help@shop.example');
    for (const bad of ['a@b.c?cc=x@y.z', 'a@b.c,d@e.f', 'no-at', 'a b@c.d']) expect(mailtoOf(bad)).toBeNull();
  });
});

describe('network logos', () => {
  it('one local SVG per network: small, self-contained (no script, link or external reference)', () => {
    const logos = new CheckoutAssets().urls().logos;
    expect(Object.keys(logos).sort()).toEqual([...NETWORK_CODES].sort());
    for (const url of Object.values(logos)) {
      expect(url).toMatch(/^\/pay\/assets\/net-[a-z0-9]+\.svg\?v=[0-9a-f]{16}$/);
      const svg = fs.readFileSync(path.join(ASSET_DIR, url.split('/').pop()!.split('?')[0]!), 'utf8');
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(svg.replace('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:|<script|href|<image|<foreignObject|url\(|style=/i);
      expect(svg.length).toBeLessThan(2048);
    }
  });
});

describe('checkout page states', () => {
  it('pending: "Open in wallet" carries the same link as the QR code; the memo wording only where there is a memo', () => {
    const html = page(view({}));
    expect(html).toContain(`id="wallet-link" href="${TON_LINK.replace(/&/g, '&amp;')}"`);
    expect(html).toContain('class="qr-code"');
    expect(html).toContain('fills in the address, the amount and the memo');
    expect(html).toContain('id="memo-warning"');
    expect(html).toContain('src="/pay/assets/net-ton.svg?v=1"');

    const tron = page(view({ network: 'TRC20', address: 'TXyz', memo: undefined }, { wallet_link: 'tron:TXyz?token=TR7&amount=10.1' }));
    expect(tron).toContain('href="tron:TXyz?token=TR7&amp;amount=10.1"');
    expect(tron.toLowerCase()).not.toContain('memo');
  });

  it('no wallet link from the daemon (or one of another scheme): no button and no QR code', () => {
    for (const link of ['', 'https://evil.example/pay']) {
      const html = page(view({}, { wallet_link: link }));
      expect(html).not.toContain('id="wallet-link"');
      expect(html).not.toContain('class="qr-code"');
      expect(html).toContain('id="address-value"');
    }
  });

  it('confirming: the instructions are replaced by "waiting for confirmations", n of m, and the explorer link', () => {
    const html = page(view({ status: 'confirming', received_amount: '10.1', confirmations: 2 }, { wallet_link: '', wallet_qr_svg: '', payments: [PAYMENT] }));
    for (const gone of ['id="wallet-link"', 'class="qr-code"', 'id="address-value"', 'id="memo-value"', 'Amount to send', 'data-copy="amount-value"']) expect(html).not.toContain(gone);
    expect(html).toContain('Payment received, waiting for confirmations');
    expect(html).toContain('2 of 5 confirmations');
    expect(html).toContain('<progress id="confirmations" max="5" value="2"');
    expect(html).toContain('href="https://tonviewer.com/transaction/abc123"');
  });

  it('partially paid: the remainder’s link and QR code, and the amount still due', () => {
    const rest = 'ton://transfer/EQabc?jetton=EQjet&amount=6100000&text=M1';
    const html = page(view({ status: 'partially_paid', received_amount: '4' }, { wallet_link: rest, payments: [{ ...PAYMENT, amount: '4', status: 'confirmed' }] }));
    expect(html).toContain(`href="${rest.replace(/&/g, '&amp;')}"`);
    expect(html).toContain('class="qr-code"');
    expect(html).toContain('ask for the remaining 6.1 USDT only');
    expect(html).toContain('Amount still due');
    expect(html).toContain('id="address-value"');
  });

  it('every page names the merchant (escaped), the short reference and the order id', () => {
    for (const status of ['pending', 'confirming', 'paid', 'underpaid', 'expired']) {
      const html = page(view({ status }));
      expect(html).toContain('Payment to Tea &amp; &lt;Co&gt;');
      expect(html).toContain('<dd id="invoice-reference">0B5E-7C1E</dd>');
      expect(html).toContain('<dd id="invoice-order">A-42</dd>');
    }
    const model = toCheckoutModel(view({}));
    expect(toBuyerJson(model)).toMatchObject({ reference: '0B5E-7C1E', order_id: 'A-42', merchant_name: 'Tea & <Co>', wallet_link: TON_LINK });
  });

  it('underpaid and expired say what to quote and whom to contact; without a contact, where to reach the merchant', () => {
    for (const status of ['underpaid', 'expired', 'overpaid']) {
      const html = page(view({ status, received_amount: status === 'expired' ? '0' : '5' }));
      expect(html).toContain('id="contact"');
      expect(html).toContain('<code id="quote-reference">0B5E-7C1E</code>');
      expect(html).toContain('<code id="quote-order">A-42</code>');
      expect(html).toContain(UUID);
      expect(html).toContain('href="https://shop.example/help"');
      expect(html).toContain('href="mailto:help@shop.example"');
      expect(html).toContain('contact Tea &amp; &lt;Co&gt;');
    }
    const bare = page(view({ status: 'expired' }, { merchant: { display_name: '' }, order_id: undefined }));
    expect(bare).toContain('Reach the merchant where you placed your order.');
    expect(bare).not.toContain('id="quote-order"');
    expect(page(view({ status: 'paid', received_amount: '10.1' }))).not.toContain('id="contact"');
  });

  it('counts down by the daemon’s clock (devnet may run ahead of the gateway’s)', () => {
    const model = toCheckoutModel(view({ expires_at: '2030-01-01T00:10:00.000Z' }, { now: '2030-01-01T00:08:30.000Z' }));
    expect(model.remainingMs).toBe(90_000);
    expect(page(view({ expires_at: '2030-01-01T00:10:00.000Z' }, { now: '2030-01-01T00:08:30.000Z' }))).toContain('datetime="2030-01-01T00:10:00.000Z">01:30</time>');
  });

  it('only https explorer links', () => {
    const html = page(view({ status: 'paid', received_amount: '10.1' }, { payments: [{ ...PAYMENT, status: 'confirmed', explorer_url: 'javascript:alert(1)' }] }));
    expect(html).toContain('abc123');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('explorer-link');
  });

  it('renders in the chosen language, with the switcher marking it and the page script’s endpoints carrying it', () => {
    const ru = LANGUAGES.ru!;
    const html = page(view({ status: 'confirming', confirmations: 1 }, { wallet_link: '' }), ru);
    expect(html).toContain('<html lang="ru">');
    expect(html).toContain('Платёж получен, ждём подтверждений');
    expect(html).toContain('href="?lang=ru" hreflang="ru" lang="ru" data-lang="ru" aria-current="true"');
    expect(html).toContain('href="?lang=es" hreflang="es" lang="es" data-lang="es">Español');
    expect(html).toContain(`"events":"/pay/${UUID}/events?lang=ru"`);
  });
});
