import QRCode from 'qrcode';
import { Invoice, type CheckoutView } from '../../src/grpc/generated/chainpay/v1/invoices';
import { Network } from '../../src/grpc/generated/chainpay/v1/networks';
import { amount, amountText, ceilAmount, DecimalFormatError } from '../../gateway/checkout/amount';
import { escapeHtml, html, jsonForScript } from '../../gateway/checkout/html';
import { toBuyerJson, toCheckoutModel } from '../../gateway/checkout/model';
import { renderCheckoutPage } from '../../gateway/checkout/page';
import { sanitizeQrSvg } from '../../gateway/checkout/qr';
import { statusText } from '../../gateway/checkout/regions';
import { EN, stringsFor } from '../../gateway/checkout/strings';
import { formatRemaining } from '../../gateway/checkout/time';

/** The pure parts of the checkout page: escaping, display arithmetic, the QR check, the buyer's model. */
const ASSETS = { script: '/pay/assets/checkout.js?v=1', style: '/pay/assets/checkout.css?v=1', logos: { TON: '/pay/assets/net-ton.svg?v=1' } };

function view(invoice: Partial<Invoice>, networks: Partial<Network>[] = []): CheckoutView {
  return {
    invoice: Invoice.fromPartial({
      uuid: '0b5e7c1e-8f0a-4a47-9d55-3c0d2a5c9e11',
      status: 'pending',
      amount: '10',
      currency: 'USDT',
      platform_fee: '0.1',
      network_fee: '0',
      pay_amount: '10.1',
      fee_payer: 'buyer',
      received_amount: '0',
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      ...invoice,
    }),
    networks: networks.map((n) => Network.fromPartial({ active: true, token_decimals: 6, buyer_network_fee: '0', min_invoice: '1', ...n })),
    wallet_link: '',
    wallet_qr_svg: '',
    payments: [],
    now: '',
  };
}

describe('html', () => {
  it('escapes every interpolation, but not nested html', () => {
    const evil = `"><script>alert('x')</script>&`;
    const out = html`<a title="${evil}">${evil}${html`<b>${evil}</b>`}${['<i>', html`<i>`]}</a>`.value;
    expect(out).not.toContain('<script>');
    expect(out).toContain('title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"');
    expect(out).toContain('<b>&quot;&gt;&lt;script&gt;');
    expect(out).toContain('&lt;i&gt;<i>');
    expect(escapeHtml('`')).toBe('&#96;');
  });

  it('keeps JSON inside a script block from closing it', () => {
    expect(jsonForScript({ t: '</script><script>x()</script>' }).value).toBe('{"t":"\\u003c/script>\\u003cscript>x()\\u003c/script>"}');
  });
});

describe('decimal display arithmetic (decimal.js)', () => {
  it('adds, subtracts, compares and rounds up exactly, in canonical text', () => {
    expect(amountText(amount('10.12345678').plus(amount('0.00000001')))).toBe('10.12345679');
    expect(amountText(amount('0.1').plus(amount('0.2')))).toBe('0.3');
    expect(amountText(amount('11.1').minus(amount('4')))).toBe('7.1');
    expect(amountText(amount('1').minus(amount('1.5')))).toBe('-0.5');
    expect(amountText(amount('2.50').minus(amount('2.5')))).toBe('0');
    expect(amountText(amount('-0'))).toBe('0');
    expect(amountText(amount('123456789012345678901234567890.123456789012345678').plus(amount('0.000000000000000001')))).toBe('123456789012345678901234567890.123456789012345679');
    expect(amountText(amount('0.000000000000000001'))).toBe('0.000000000000000001');
    expect(amount('1.000000000000000001').cmp(amount('1'))).toBe(1);
    expect(amount('0.5').cmp(amount('0.50'))).toBe(0);
    expect(amountText(ceilAmount(amount('11.2246913478'), 6))).toBe('11.224692');
    expect(amountText(ceilAmount(amount('11.224692'), 6))).toBe('11.224692');
    expect(amountText(ceilAmount(amount('1.00000001025'), 18))).toBe('1.00000001025');
  });

  it('takes only plain decimal strings (not what decimal.js alone would parse)', () => {
    for (const bad of ['1e5', '0x1f', 'Infinity', 'NaN', '.5', '5.', ' 1', '+1', '']) {
      expect(() => amount(bad)).toThrow(DecimalFormatError);
    }
  });
});

describe('QR code check', () => {
  it('accepts what the qrcode package emits and nothing else', async () => {
    const svg = await QRCode.toString('ton://transfer/EQabc?amount=1&text=M1', { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    expect(sanitizeQrSvg(svg)?.value).toMatch(/^<svg aria-hidden="true" focusable="false" xmlns=/);
    const open = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9">';
    expect(sanitizeQrSvg(`${open}<path d="M0 0h9"/></svg>`)).not.toBeNull();
    for (const bad of [
      `${open}<script>alert(1)</script></svg>`,
      `${open}<path d="M0 0" onload="alert(1)"/></svg>`,
      `${open}<path fill="url(https://evil.example/x)" d="M0"/></svg>`,
      `${open}<foreignObject></foreignObject></svg>`,
      `${open}<path d="M0" d="M1"/></svg>`,
      `${open}<path d="M0"/></svg><img src=x>`,
      '<svg viewBox="0 0 9 9"><path d="M0"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" style="x"></svg>',
      '',
    ]) {
      expect(sanitizeQrSvg(bad)).toBeNull();
    }
  });
});

describe('strings', () => {
  it('picks a language we have from Accept-Language, else English', () => {
    expect(stringsFor('de-DE,de;q=0.9,en;q=0.5')).toBe(EN);
    expect(stringsFor('constructor')).toBe(EN);
    expect(stringsFor('__proto__')).toBe(EN);
    expect(stringsFor(undefined)).toBe(EN);
  });

  it('formats the time left', () => {
    expect(formatRemaining(59_000, EN)).toBe('00:59');
    expect(formatRemaining(3_600_000, EN)).toBe('1:00:00');
    expect(formatRemaining(90_061_000, EN)).toBe('1 d 1:01:01');
  });
});

describe('the buyer model', () => {
  it('never carries metadata, webhook URL, merchant id or the Invoice message’s order id, even if the daemon sent them (the order id shown is the view’s own field)', () => {
    const v = view({ metadata_json: '{"note":"meta-leak"}', webhook_url: 'https://hook-leak.example', merchant_id: 'merchant-leak', order_id: 'order-leak', return_url: 'https://shop.example/ok' }, [
      { code: 'TON', name: 'TON' },
    ]);
    const model = toCheckoutModel(v);
    const outputs = [JSON.stringify(toBuyerJson(model)), renderCheckoutPage(model, EN, ASSETS).value];
    for (const out of outputs) {
      for (const leak of ['meta-leak', 'hook-leak', 'merchant-leak', 'order-leak']) expect(out).not.toContain(leak);
    }
  });

  it('drops return and cancel URLs that are not http(s)', () => {
    const model = toCheckoutModel(view({ status: 'paid', return_url: 'javascript:alert(1)', cancel_url: 'data:text/html,x' }));
    expect(model.returnUrl).toBeNull();
    expect(model.cancelUrl).toBeNull();
    expect(renderCheckoutPage(model, EN, ASSETS).value).not.toContain('javascript:');
  });

  it('estimates each network’s amount and disables networks whose minimum the amount misses', () => {
    const model = toCheckoutModel(
      view({ amount: '10.12345678', platform_fee: '0.10123522', pay_amount: '10.224692' }, [
        { code: 'TRC20', name: 'Tron', buyer_network_fee: '1', token_decimals: 6 },
        { code: 'BEP20', name: 'BNB', buyer_network_fee: '0', token_decimals: 18 },
        { code: 'SOLANA', name: 'Solana', min_invoice: '20' },
        { code: 'POLYGON', name: 'Polygon', active: false },
      ]),
    );
    expect(model.networks.map((n) => [n.code, n.payAmount, n.available])).toEqual([
      ['TRC20', '11.224692', true],
      ['BEP20', '10.224692', true],
      ['SOLANA', '10.224692', false],
    ]);
    const page = renderCheckoutPage(model, EN, ASSETS).value;
    expect(page).toMatch(/value="SOLANA" class="network-option" disabled/);
    expect(page).toContain('minimum 20 USDT');
  });

  it('hides the fee breakdown when the merchant pays the fees', () => {
    const model = toCheckoutModel(view({ fee_payer: 'merchant', platform_fee: '0.1', pay_amount: '10' }));
    expect(model.fees).toBeNull();
    const page = renderCheckoutPage(model, EN, ASSETS).value;
    expect(page).toContain('Fees are paid by the merchant.');
    expect(page).not.toContain('Service fee');
  });

  it('words every status', () => {
    const text = (inv: Partial<Invoice>) => statusText(toCheckoutModel(view(inv)), EN);
    expect(text({})).toBe('Choose a network to see where to pay.');
    expect(text({ network: 'TON' })).toBe('Waiting for your payment.');
    expect(text({ network: 'TON', status: 'confirming', confirmations: 2, required_confirmations: 5 })).toBe('Payment seen. Confirming: 2 of 5 confirmations.');
    expect(text({ network: 'TON', status: 'partially_paid', received_amount: '4' })).toBe('Partially paid: 6.1 USDT still due.');
    expect(text({ network: 'TON', status: 'paid', received_amount: '10.1' })).toBe('Paid. Thank you!');
    expect(text({ network: 'TON', status: 'overpaid', received_amount: '12' })).toBe('Paid. More than the amount due was received.');
    expect(text({ network: 'TON', status: 'underpaid', received_amount: '10' })).toBe('Underpaid: the invoice ended with 0.1 USDT missing.');
    expect(text({ status: 'expired' })).toBe('Expired. Do not send a payment to this invoice.');
    expect(text({ status: 'something_new' })).toBe('Checking the payment status…');
  });

  it('a devnet invoice (livemode false) says it is a test: a banner first in the header and the document title; a live one does not', () => {
    const devnet = toCheckoutModel(view({ title: 'Tea', network: 'TON' }));
    expect(devnet.livemode).toBe(false);
    expect(toBuyerJson(devnet).livemode).toBe(false);
    const page = renderCheckoutPage(devnet, EN, ASSETS).value;
    // Text, readable by a screen reader before the amount: a note at the top of the header.
    expect(page).toMatch(
      /<header class="page-header">\s*<p class="test-banner" id="test-banner" role="note"><strong>Test payment: no real funds\.<\/strong> This invoice runs on a simulated network \(devnet\)\. Do not send real USDT/,
    );
    expect(page).toContain('<title>Test payment: Pay: Tea</title>');
    expect(page.indexOf('id="test-banner"')).toBeLessThan(page.indexOf('id="amount-heading"'));

    const live = toCheckoutModel(view({ title: 'Tea', network: 'TON', livemode: true }));
    expect(toBuyerJson(live).livemode).toBe(true);
    const livePage = renderCheckoutPage(live, EN, ASSETS).value;
    expect(livePage).not.toContain('test-banner');
    expect(livePage).not.toContain('Test payment');
    expect(livePage).toContain('<title>Pay: Tea</title>');
  });

  it('offers the way back after payment and the way out only while unpaid', () => {
    const urls = { return_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' };
    const links = (inv: Partial<Invoice>) => {
      const page = renderCheckoutPage(toCheckoutModel(view({ network: 'TON', ...urls, ...inv })), EN, ASSETS).value;
      return [page.includes('id="return-link"'), page.includes('id="cancel-link"')];
    };
    expect(links({})).toEqual([false, true]);
    expect(links({ status: 'confirming' })).toEqual([false, false]);
    expect(links({ status: 'paid' })).toEqual([true, false]);
    expect(links({ status: 'overpaid' })).toEqual([true, false]);
    expect(links({ status: 'underpaid' })).toEqual([true, false]);
    expect(links({ status: 'expired' })).toEqual([false, true]);
  });
});
