import http from 'node:http';
import { forbiddenRange } from '../../src/webhooks/ip-ranges';
import { parseTargetUrl, pinnedLookup, resolveTarget, TargetRefusedError, type Resolver } from '../../src/webhooks/address-guard';
import { sendWebhook, SendAbortedError, type SendOptions } from '../../src/webhooks/send';
import { standardSignature, webhookHeaders } from '../../src/webhooks/signing';
import { makeCert, Receiver, type TestCert } from './support';

const FORBIDDEN: ReadonlyArray<readonly [string, RegExp]> = [
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['10.0.0.1', /RFC 1918/],
  ['10.255.255.255', /RFC 1918/],
  ['172.16.0.1', /RFC 1918/],
  ['172.31.255.255', /RFC 1918/],
  ['192.168.1.1', /RFC 1918/],
  ['169.254.169.254', /link-local/],
  ['100.64.0.1', /CGNAT/],
  ['100.127.255.255', /CGNAT/],
  ['0.0.0.0', /this-network/],
  ['0.1.2.3', /this-network/],
  ['224.0.0.1', /multicast/],
  ['239.255.255.250', /multicast/],
  ['240.0.0.1', /reserved/],
  ['255.255.255.255', /reserved/],
  ['192.0.2.10', /documentation/],
  ['198.18.0.1', /benchmarking/],
  ['192.0.0.8', /IETF/],
  ['::1', /loopback/],
  ['::', /unspecified/],
  ['fe80::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['febf:ffff::1', /link-local/],
  ['fc00::1', /unique-local/],
  ['fd12:3456:789a::1', /unique-local/],
  ['fec0::1', /site-local/],
  ['ff02::1', /multicast/],
  ['::ffff:127.0.0.1', /IPv4-mapped loopback/],
  ['::ffff:7f00:1', /IPv4-mapped loopback/],
  ['::ffff:10.0.0.1', /IPv4-mapped private/],
  ['::ffff:a9fe:a9fe', /IPv4-mapped link-local/],
  ['::ffff:100.64.0.1', /IPv4-mapped CGNAT/],
  ['0:0:0:0:0:ffff:c0a8:0101', /IPv4-mapped private/],
  ['::127.0.0.1', /IPv4-compatible/],
  ['64:ff9b::a00:1', /NAT64 private/],
  ['2002:a00:1::1', /6to4 private/],
  ['2001:db8::1', /documentation/],
  ['2001::1', /IETF/],
  ['100::1', /discard/],
  ['4000::1', /reserved/],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.169.0.1',
  '9.255.255.255',
  '11.0.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

describe('address guard: which addresses are forbidden', () => {
  it.each(FORBIDDEN)('refuses %s', (ip, label) => {
    expect(forbiddenRange(ip)).toMatch(label);
  });
  it.each(PUBLIC)('allows public %s', (ip) => {
    expect(forbiddenRange(ip)).toBeNull();
  });
  it('something that is not an address is refused', () => {
    expect(forbiddenRange('example.com')).toBe('not an IP address');
    for (const bad of ['', '1.2.3', '1.2.3.256', '::ffff:1.2.3', 'fe80::1::2', '[::1']) expect(forbiddenRange(bad)).toBe('not an IP address');
  });

  it('every text form of an IPv4-mapped, NAT64 or 6to4 address is judged by the IPv4 address inside', () => {
    // The same loopback and private addresses in the spellings an attacker may try (node:net's
    // BlockList reads them all as one address).
    for (const ip of ['::ffff:127.0.0.1', '::FFFF:7F00:0001', '0:0:0:0:0:ffff:127.0.0.1', '0000:0000:0000:0000:0000:FFFF:7F00:0001', '::ffff:7f00:1', '[::ffff:127.0.0.1]']) {
      expect(forbiddenRange(ip)).toBe('IPv4-mapped loopback');
    }
    expect(forbiddenRange('64:ff9b::127.0.0.1')).toBe('NAT64 loopback');
    expect(forbiddenRange('2002:7f00:1:ffff::1')).toBe('6to4 loopback');
    // Each forbidden IPv4 range, at its edges, through each embedding; the address just outside stays public.
    const edges: ReadonlyArray<readonly [string, string, string]> = [
      ['172.16.0.0', '172.31.255.255', '172.32.0.0'],
      ['100.64.0.0', '100.127.255.255', '100.128.0.0'],
      ['198.18.0.0', '198.19.255.255', '198.20.0.0'],
      ['169.254.0.0', '169.254.255.255', '169.255.0.0'],
    ];
    const hex = (v4: string): string => {
      const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
      return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    };
    const forms: ReadonlyArray<readonly [string, (v4: string) => string]> = [
      ['IPv4-mapped', (v4) => `::ffff:${v4}`],
      ['IPv4-mapped', (v4) => `::ffff:${hex(v4)}`],
      ['NAT64', (v4) => `64:ff9b::${v4}`],
      ['6to4', (v4) => `2002:${hex(v4)}::1`],
    ];
    for (const [first, last, outside] of edges) {
      const label = forbiddenRange(first);
      expect(label).not.toBeNull();
      expect(forbiddenRange(last)).toBe(label);
      for (const [name, form] of forms) {
        expect(forbiddenRange(form(first))).toBe(`${name} ${label}`);
        expect(forbiddenRange(form(last))).toBe(`${name} ${label}`);
        expect(forbiddenRange(form(outside))).toBeNull();
      }
    }
  });

  it('a zone id or brackets do not hide the address', () => {
    expect(forbiddenRange('[fe80::1%eth0]')).toBe('link-local');
    expect(forbiddenRange('[::1]')).toBe('loopback');
    expect(forbiddenRange('[2606:4700:4700::1111]')).toBeNull();
  });
});

describe('address guard: URLs and DNS answers', () => {
  const answers = (list: string[]): Resolver & { calls: number } => {
    const r = Object.assign(
      async () => {
        r.calls++;
        return list.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
      },
      { calls: 0 },
    );
    return r;
  };

  it('HTTPS only', () => {
    expect(() => parseTargetUrl('http://shop.example/hook')).toThrow(/must be https/);
    expect(() => parseTargetUrl('ftp://shop.example/hook')).toThrow(TargetRefusedError);
    expect(() => parseTargetUrl('not a url')).toThrow(/not a valid URL/);
    expect(parseTargetUrl('https://shop.example:8443/h?x=1').port).toBe('8443');
  });

  it('a hostname resolving to 10.0.0.1 is refused', async () => {
    const resolver = answers(['10.0.0.1']);
    await expect(resolveTarget(new URL('https://shop.example/hook'), { allowPrivate: false, resolver })).rejects.toThrow('address 10.0.0.1 refused: private (RFC 1918)');
    expect(resolver.calls).toBe(1);
  });

  it('every resolved address is checked: one private answer among public ones refuses the host', async () => {
    await expect(resolveTarget(new URL('https://shop.example/'), { allowPrivate: false, resolver: answers(['93.184.216.34', '2606:4700::1', '::ffff:192.168.0.1']) })).rejects.toThrow(
      /192\.168\.0\.1 refused/,
    );
    await expect(resolveTarget(new URL('https://shop.example/'), { allowPrivate: false, resolver: answers([]) })).rejects.toThrow(/no address/);
    const ok = await resolveTarget(new URL('https://shop.example/'), { allowPrivate: false, resolver: answers(['93.184.216.34', '2606:4700::1']) });
    expect(ok.map((a) => a.address)).toEqual(['93.184.216.34', '2606:4700::1']);
  });

  it('IP literals are checked without DNS (brackets and all)', async () => {
    const resolver = answers(['8.8.8.8']);
    await expect(resolveTarget(new URL('https://127.0.0.1:8443/'), { allowPrivate: false, resolver })).rejects.toThrow(/loopback/);
    await expect(resolveTarget(new URL('https://[::1]/'), { allowPrivate: false, resolver })).rejects.toThrow(/loopback/);
    await expect(resolveTarget(new URL('https://[::ffff:169.254.169.254]/'), { allowPrivate: false, resolver })).rejects.toThrow(/link-local/);
    await expect(resolveTarget(new URL('https://2130706433/'), { allowPrivate: false, resolver })).rejects.toThrow(/127\.0\.0\.1 refused: loopback/);
    expect(resolver.calls).toBe(0);
  });

  it('WEBHOOK_ALLOW_PRIVATE_TARGETS lifts the guard', async () => {
    const got = await resolveTarget(new URL('https://shop.example/'), { allowPrivate: true, resolver: answers(['10.0.0.1']) });
    expect(got).toEqual([{ address: '10.0.0.1', family: 4 }]);
  });

  it('the connection lookup answers only with the checked addresses, by family', () => {
    const lookup = pinnedLookup([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
    const calls: unknown[][] = [];
    lookup('other.example', { all: true }, (...a) => calls.push(a));
    lookup('other.example', { family: 6 }, (...a) => calls.push(a));
    lookup('other.example', 4, (...a) => calls.push(a));
    expect(calls).toEqual([
      [
        null,
        [
          { address: '93.184.216.34', family: 4 },
          { address: '2606:4700::1', family: 6 },
        ],
      ],
      [null, '2606:4700::1', 6],
      [null, '93.184.216.34', 4],
    ]);
  });
});

describe('sendWebhook against a real local HTTPS receiver', () => {
  let cert: TestCert;
  let receiver: Receiver;
  let plain: http.Server;
  let plainHits = 0;
  const body = Buffer.from('{"id":"evt_1","type":"invoice.paid","created_at":"2026-01-01T00:00:00.000Z","data":{}}');
  const headers = { 'content-type': 'application/json' };
  const opts = (o: Partial<SendOptions> = {}): SendOptions => ({ allowPrivate: true, timeoutMs: 5_000, ca: cert.cert, ...o });

  beforeAll(async () => {
    cert = makeCert();
    receiver = await Receiver.start(cert);
    receiver.openapi = false; // sendWebhook's transport, with a payload of the test's making
    plain = http.createServer((_req, res) => {
      plainHits++;
      res.end('ok');
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await receiver.down();
    await new Promise((r) => plain.close(r));
  });
  beforeEach(() => {
    receiver.reply = () => ({ status: 200 });
  });

  it('delivers, pinned to the one checked DNS answer (no second resolution)', async () => {
    let calls = 0;
    const resolver: Resolver = async () => {
      calls++;
      // A rebinding resolver: only its first answer points at the receiver.
      return calls === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }];
    };
    const res = await sendWebhook(`https://receiver.test:${receiver.port}/pinned`, headers, body, opts({ resolver }));
    expect(res).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(calls).toBe(1);
    expect(receiver.at('/pinned')[0]!.body.equals(body)).toBe(true);
  });

  it('refuses loopback when the guard is on; nothing reaches the receiver', async () => {
    const res = await sendWebhook(receiver.url('/guarded'), headers, body, opts({ allowPrivate: false }));
    expect(res).toMatchObject({ ok: false, statusCode: null, permanent: false, error: 'address 127.0.0.1 refused: loopback' });
    const viaName = await sendWebhook(`https://receiver.test:${receiver.port}/guarded`, headers, body, opts({ allowPrivate: false, resolver: async () => [{ address: '10.0.0.1', family: 4 }] }));
    expect(viaName.error).toBe('address 10.0.0.1 refused: private (RFC 1918)');
    expect(receiver.at('/guarded')).toHaveLength(0);
  });

  it('refuses http:// for good, without connecting', async () => {
    const port = (plain.address() as { port: number }).port;
    const res = await sendWebhook(`http://127.0.0.1:${port}/hook`, headers, body, opts());
    expect(res).toMatchObject({ ok: false, permanent: true, error: 'webhook URL must be https (got http)' });
    expect(plainHits).toBe(0);
  });

  it('does not follow a 302', async () => {
    receiver.reply = (p) => (p === '/redirect' ? { status: 302, headers: { location: receiver.url('/target') } } : { status: 200 });
    const res = await sendWebhook(receiver.url('/redirect'), headers, body, opts());
    expect(res).toMatchObject({ ok: false, statusCode: 302, error: 'redirect not followed (HTTP 302)' });
    expect(receiver.at('/target')).toHaveLength(0);
  });

  it('an untrusted certificate, a timeout and a shutdown abort', async () => {
    const untrusted = await sendWebhook(receiver.url('/tls'), headers, body, opts({ ca: undefined }));
    expect(untrusted.ok).toBe(false);
    expect(untrusted.error).toMatch(/self-signed|certificate/i);
    receiver.reply = () => 'hang';
    const slow = await sendWebhook(receiver.url('/slow'), headers, body, opts({ timeoutMs: 300 }));
    expect(slow).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 300 ms' });
    expect(slow.latencyMs).toBeGreaterThanOrEqual(290);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    await expect(sendWebhook(receiver.url('/slow'), headers, body, opts({ signal: abort.signal }))).rejects.toBeInstanceOf(SendAbortedError);
  });

  it('aborted before the lookup ends: the lookup failing afterwards is handled (an unhandled rejection would crash the daemon)', async () => {
    let lookupFailed = false;
    const failingLater: Resolver = () =>
      new Promise((_resolve, reject) =>
        setTimeout(() => {
          lookupFailed = true;
          reject(Object.assign(new Error('getaddrinfo ENOTFOUND merchant.example'), { code: 'ENOTFOUND' }));
        }, 20),
      );
    const stopped = new AbortController();
    stopped.abort(); // shutdown came between the claim and the send
    await expect(sendWebhook('https://merchant.example/hook', headers, body, opts({ signal: stopped.signal, resolver: failingLater }))).rejects.toBeInstanceOf(SendAbortedError);
    await new Promise((r) => setTimeout(r, 60));
    // Jest fails the suite on an unhandled rejection; reaching here with the lookup failed is the point.
    expect(lookupFailed).toBe(true);
  });
});

describe('signatures', () => {
  it('Standard Webhooks reference vector', () => {
    const sig = standardSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, Buffer.from('{"test": 2432232314}'));
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('X-Service-Signature is the hex HMAC of the body with the API secret', () => {
    const h = webhookHeaders({ id: 'evt_1', timestamp: 1700000000, body: Buffer.from('{}'), apiSecret: 'sk_test', webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
    expect(h['x-service-signature']).toBe('26b9b2bcf36b82832eb315d22b58c621385f625cd19e20e6c27e5895932ef2c3');
    expect(h).toMatchObject({ 'content-type': 'application/json', 'webhook-id': 'evt_1', 'webhook-timestamp': '1700000000' });
  });
});
