import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status, type ServerWritableStream } from '@grpc/grpc-js';
import { DevnetPayResponse, DevnetClock, DevnetChainState } from '../grpc/generated/chainpay/v1/devnet';
import { Invoice, InvoiceUpdate } from '../grpc/generated/chainpay/v1/invoices';
import { Balance, CreateMerchantResponse, Merchant } from '../grpc/generated/chainpay/v1/merchants';
import { ListNetworksResponse, Network } from '../grpc/generated/chainpay/v1/networks';
import { ActorEvent, ListWatchersResponse, ListWebhooksResponse, UnattributedDeposit, WatcherStatus } from '../grpc/generated/chainpay/v1/operator';
import { Withdrawal, WhitelistEntry } from '../grpc/generated/chainpay/v1/withdrawals';
import { FakeDaemon } from './fake-daemon.test-support';
import { run, type CliIO } from './main';
import { operatorName } from './target';

let daemon: FakeDaemon;
let emptyDataDir: string;

beforeAll(async () => {
  daemon = await FakeDaemon.start();
  emptyDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-cli-'));
});
afterAll(async () => {
  await daemon.stop();
  fs.rmSync(emptyDataDir, { recursive: true, force: true });
});
beforeEach(() => daemon.reset());

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(argv: string[], io: Partial<CliIO> & { env?: Record<string, string> } = {}): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const env = { CHAINPAY_GRPC_ADDR: daemon.address, CHAINPAY_OPERATOR_TOKEN: 'op_test_token', DATA_DIR: emptyDataDir, ...io.env };
  const code = await run(argv, {
    ...io,
    env,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

const MERCHANT = Merchant.fromPartial({ merchant_id: 'm_1', name: 'Shop', api_key: 'pk_1', platform_fee_percent: '0.50', cap_per_withdrawal: '1000', cap_daily: '5000' });

describe('merchant commands', () => {
  it('create sends the fields untouched and prints the secrets as one JSON document', async () => {
    daemon.respond('createMerchant', () => CreateMerchantResponse.fromPartial({ merchant: MERCHANT, api_secret: 'sk_secret', webhook_secret: 'whsec_x' }));
    const r = await cli(['merchant', 'create', '--name', 'Shöp ✓', '--webhook-url', 'https://shop.example/hook', '--platform-fee-percent', '0.50', '--json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(daemon.last('createMerchant').request).toEqual({ name: 'Shöp ✓', webhook_url: 'https://shop.example/hook', platform_fee_percent: '0.50' });
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ merchant_id: 'm_1', api_key: 'pk_1', api_secret: 'sk_secret', webhook_secret: 'whsec_x' });
  });

  it('sends the operator token from CHAINPAY_OPERATOR_TOKEN as a bearer token', async () => {
    daemon.respond('getMerchant', () => MERCHANT);
    const r = await cli(['merchant', 'show', '--merchant', 'm_1']);
    expect(r.code).toBe(0);
    expect(daemon.last('getMerchant').metadata.authorization).toBe('Bearer op_test_token');
    expect(daemon.last('getMerchant').request).toEqual({ merchant_id: 'm_1' });
    expect(r.stdout).toMatch(/^merchant_id\s+m_1$/m);
    expect(r.stdout).toMatch(/^platform_fee_percent\s+0\.50$/m);
  });

  it('reads the operator token from $DATA_DIR/operator-token (trimmed) when the environment has none', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-cli-token-'));
    fs.writeFileSync(path.join(dir, 'operator-token'), '  op_from_file \n');
    daemon.respond('listMerchants', () => ({ merchants: [MERCHANT] }));
    const r = await cli(['merchant', 'list'], { env: { CHAINPAY_OPERATOR_TOKEN: '', DATA_DIR: dir } });
    fs.rmSync(dir, { recursive: true });
    expect(r.code).toBe(0);
    expect(daemon.last('listMerchants').metadata.authorization).toBe('Bearer op_from_file');
    expect(r.stdout).toMatch(/^MERCHANT_ID\s+NAME/);
    expect(r.stdout).toMatch(/^m_1\s+Shop\s+0\.50/m);
  });

  it('sends no authorization when there is no token anywhere', async () => {
    daemon.respond('listNetworks', () => ListNetworksResponse.fromPartial({ networks: [] }));
    const r = await cli(['networks'], { env: { CHAINPAY_OPERATOR_TOKEN: '' } });
    expect(r.code).toBe(0);
    expect(daemon.last('listNetworks').metadata.authorization).toBeUndefined();
  });

  it('names the acting person as x-operator-name: CHAINPAY_OPERATOR_NAME, else the OS user', async () => {
    daemon.respond('getMerchant', () => MERCHANT);
    expect((await cli(['merchant', 'show', '--merchant', 'm_1'], { env: { CHAINPAY_OPERATOR_NAME: ' alice ' } })).code).toBe(0);
    expect(daemon.last('getMerchant').metadata['x-operator-name']).toBe('alice');
    expect((await cli(['merchant', 'show', '--merchant', 'm_1'], { env: { CHAINPAY_OPERATOR_NAME: 'zoë' } })).code).toBe(0);
    expect(daemon.last('getMerchant').metadata['x-operator-name']).toBe('zo'); // metadata is printable ASCII
    expect((await cli(['merchant', 'show', '--merchant', 'm_1'])).code).toBe(0);
    expect(daemon.last('getMerchant').metadata['x-operator-name']).toBe(os.userInfo().username);
  });

  it('operatorName falls back to USER/LOGNAME when the OS has no user entry', () => {
    const noUser = (): string => {
      throw new Error('ENOENT: no passwd entry');
    };
    expect(operatorName({ USER: 'bob' }, noUser)).toBe('bob');
    expect(operatorName({ LOGNAME: 'carol' }, noUser)).toBe('carol');
    expect(operatorName({}, noUser)).toBeUndefined();
    expect(operatorName({ CHAINPAY_OPERATOR_NAME: '   ' }, () => 'dave')).toBe('dave');
  });

  it('set-caps and set-fee map to UpdateMerchant with amounts as given', async () => {
    daemon.respond('updateMerchant', () => MERCHANT);
    expect((await cli(['merchant', 'set-caps', '--merchant', 'm_1', '--per-withdrawal', '1000.000000', '--daily', '0.1'])).code).toBe(0);
    expect(daemon.last('updateMerchant').request).toEqual({ merchant_id: 'm_1', cap_per_withdrawal: '1000.000000', cap_daily: '0.1' });
    expect((await cli(['merchant', 'set-caps', '--merchant', 'm_1', '--refund-per-refund', '50', '--refund-daily', '300'])).code).toBe(0);
    expect(daemon.last('updateMerchant').request).toEqual({ merchant_id: 'm_1', cap_per_refund: '50', cap_daily_refund: '300' });
    expect((await cli(['merchant', 'set-fee', '--merchant', 'm_1', '--percent', '1.2500'])).code).toBe(0);
    expect(daemon.last('updateMerchant').request).toEqual({ merchant_id: 'm_1', platform_fee_percent: '1.2500' });
  });

  it('set-checkout maps to UpdateMerchant with the checkout settings as given ("" clears)', async () => {
    daemon.respond('updateMerchant', () => MERCHANT);
    expect((await cli(['merchant', 'set-checkout', '--merchant', 'm_1', '--display-name', 'Shop & Co', '--support-email', 'help@shop.example'])).code).toBe(0);
    expect(daemon.last('updateMerchant').request).toEqual({ merchant_id: 'm_1', display_name: 'Shop & Co', support_email: 'help@shop.example' });
    expect((await cli(['merchant', 'set-checkout', '--merchant', 'm_1', '--support-url', ''])).code).toBe(0);
    expect(daemon.last('updateMerchant').request).toEqual({ merchant_id: 'm_1', support_url: '' });
    expect((await cli(['merchant', 'set-checkout', '--merchant', 'm_1'])).code).toBe(2);
  });

  it('rotate-secret prints {api_key, api_secret}', async () => {
    daemon.respond('rotateSecret', () => ({ api_key: 'pk_2', api_secret: 'sk_2' }));
    const r = await cli(['merchant', 'rotate-secret', '--merchant', 'm_1', '--json']);
    expect(JSON.parse(r.stdout)).toEqual({ api_key: 'pk_2', api_secret: 'sk_2' });
    expect(daemon.last('rotateSecret').request).toEqual({ merchant_id: 'm_1' });
  });
});

describe('money, networks, whitelist, withdrawals', () => {
  it('balance prints {available, held} and names the merchant in the message and metadata', async () => {
    daemon.respond('getBalance', () => Balance.fromPartial({ merchant_id: 'm_1', available: '12.340000', held: '0.000000000000000001', currency: 'USDT' }));
    const r = await cli(['balance', '--merchant', 'm_1', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ available: '12.340000', held: '0.000000000000000001' });
    expect(daemon.last('getBalance').request).toEqual({ merchant_id: 'm_1' });
    expect(daemon.last('getBalance').metadata['x-merchant-id']).toBe('m_1');
  });

  it('networks --all and networks set-fee', async () => {
    const net = Network.fromPartial({ code: 'TRC20', name: 'Tron', buyer_network_fee: '1.0', min_invoice: '0.50', required_confirmations: 19, active: true });
    daemon.respond('listNetworks', () => ListNetworksResponse.fromPartial({ networks: [net] }));
    const list = await cli(['networks', '--all']);
    expect(daemon.last('listNetworks').request).toEqual({ include_inactive: true });
    expect(list.stdout).toMatch(/^TRC20\s+Tron\s+1\.0/m);
    daemon.respond('updateNetworkFees', () => net);
    const r = await cli(['networks', 'set-fee', '--network', 'TRC20', '--buyer-network-fee', '1.10', '--min-invoice', '0.000001', '--confirmations', '20', '--json']);
    expect(r.code).toBe(0);
    expect(daemon.last('updateNetworkFees').request).toEqual({ code: 'TRC20', buyer_network_fee: '1.10', min_invoice: '0.000001', required_confirmations: 20 });
    expect(JSON.parse(r.stdout).code).toBe('TRC20');
  });

  it('networks set-explorer sends the template; none is the empty template', async () => {
    const net = Network.fromPartial({ code: 'TON', explorer_tx_url: 'https://testnet.tonviewer.com/transaction/{tx}' });
    daemon.respond('updateNetworkFees', () => net);
    const r = await cli(['networks', 'set-explorer', '--network', 'TON', '--tx-url', 'https://testnet.tonviewer.com/transaction/{tx}']);
    expect(r.code).toBe(0);
    expect(daemon.last('updateNetworkFees').request).toEqual({ code: 'TON', explorer_tx_url: 'https://testnet.tonviewer.com/transaction/{tx}' });
    expect(r.stdout).toContain('https://testnet.tonviewer.com/transaction/{tx}');
    expect((await cli(['networks', 'set-explorer', '--network', 'TON', '--tx-url', 'none'])).code).toBe(0);
    expect(daemon.last('updateNetworkFees').request).toEqual({ code: 'TON', explorer_tx_url: '' });
  });

  it('whitelist add sends merchant, network and address', async () => {
    daemon.respond('addWhitelist', (req) => WhitelistEntry.fromPartial({ ...(req as object), added_at: '2026-01-01T00:00:00.000Z', usable_at: '2026-01-02T00:00:00.000Z' }));
    const r = await cli(['whitelist', 'add', '--merchant', 'm_1', '--network', 'BEP20', '--address', '0xAbC']);
    expect(r.code).toBe(0);
    expect(daemon.last('addWhitelist').request).toEqual({ merchant_id: 'm_1', network: 'BEP20', address: '0xAbC' });
    expect(r.stdout).toMatch(/^usable_at\s+2026-01-02T00:00:00.000Z$/m);
  });

  it('withdrawals approve / reject go to the OperatorService', async () => {
    const w = Withdrawal.fromPartial({ uuid: 'w-1', status: 'processing', amount: '2500.5' });
    daemon.respond('approveWithdrawal', () => w);
    daemon.respond('rejectWithdrawal', () => ({ ...w, status: 'rejected', rejection_reason: 'fraud' }));
    expect((await cli(['withdrawals', 'approve', 'w-1'])).code).toBe(0);
    expect(daemon.last('approveWithdrawal').request).toEqual({ uuid: 'w-1' });
    const r = await cli(['withdrawals', 'reject', 'w-1', '--reason', 'looks like fraud', '--json']);
    expect(daemon.last('rejectWithdrawal').request).toEqual({ uuid: 'w-1', reason: 'looks like fraud' });
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'rejected', amount: '2500.5' });
  });

  it('withdrawals list without --merchant asks for all merchants', async () => {
    daemon.respond('listWithdrawals', () => ({ withdrawals: [] }));
    const r = await cli(['withdrawals', 'list', '--status', 'review', '--limit', '20']);
    expect(r.stdout.trim()).toBe('(none)');
    expect(daemon.last('listWithdrawals').request).toEqual({ merchant_id: '', status: 'review', limit: 20 });
  });
});

describe('operator and devnet commands', () => {
  it('watchers rescan sends int64 heights as strings; watchers --network filters', async () => {
    const w = WatcherStatus.fromPartial({ network: 'SOLANA', state: 'running', head: '300000000001', cursor: '123456789012' });
    daemon.respond('rescanWatcher', () => w);
    const r = await cli(['watchers', 'rescan', '--network', 'SOLANA', '--from', '123456789012', '--json']);
    expect(daemon.last('rescanWatcher').request).toEqual({ network: 'SOLANA', from_height: '123456789012' });
    expect(JSON.parse(r.stdout).head).toBe('300000000001');
    daemon.respond('listWatchers', () => ListWatchersResponse.fromPartial({ watchers: [w, { ...w, network: 'TON' }] }));
    const list = await cli(['watchers', '--network', 'TON', '--json']);
    expect(JSON.parse(list.stdout).watchers.map((x: WatcherStatus) => x.network)).toEqual(['TON']);
  });

  it('deposits attribute and devnet pay / mine / advance-time', async () => {
    daemon.respond('attributeDeposit', () => UnattributedDeposit.fromPartial({ id: 'd1', status: 'attributed', invoice_uuid: 'inv-1' }));
    expect((await cli(['deposits', 'attribute', 'd1', '--invoice', 'inv-1'])).code).toBe(0);
    expect(daemon.last('attributeDeposit').request).toEqual({ deposit_id: 'd1', invoice_uuid: 'inv-1' });

    daemon.respond('pay', () => DevnetPayResponse.fromPartial({ tx_hash: '0xfeed', block_height: '42' }));
    const pay = await cli(['devnet', 'pay', '--network', 'BEP20', '--to', '0xA1', '--amount', '10.000000000000000001', '--memo', 'inv 7', '--token', 'fake', '--json']);
    expect(daemon.last('pay').request).toEqual({ network: 'BEP20', to: '0xA1', amount: '10.000000000000000001', memo: 'inv 7', token: 'fake' });
    expect(JSON.parse(pay.stdout)).toEqual({ tx_hash: '0xfeed', block_height: '42' });

    daemon.respond('mine', () => DevnetChainState.fromPartial({ network: 'BEP20', head: '50' }));
    await cli(['devnet', 'mine', '--network', 'BEP20']);
    expect(daemon.last('mine').request).toEqual({ network: 'BEP20', blocks: 1 });

    daemon.respond('advanceTime', () => DevnetClock.fromPartial({ now: '2026-01-01T01:00:00.000Z', offset_seconds: '3600' }));
    const t = await cli(['devnet', 'advance-time', '--seconds', '3600']);
    expect(daemon.last('advanceTime').request).toEqual({ seconds: '3600' });
    expect(t.stdout).toMatch(/^offset_seconds\s+3600$/m);
  });

  it('webhooks list prints every event with its delivery log (attempt, time, status code, latency, error) without --json', async () => {
    daemon.respond('listWebhooks', () =>
      ListWebhooksResponse.fromPartial({
        events: [
          {
            id: 'evt_b',
            type: 'invoice.paid',
            merchant_id: 'm_1',
            aggregate_id: 'inv-1',
            status: 'pending',
            attempts: 2,
            next_attempt_at: '2026-01-01T00:05:05.000Z',
            target_url: 'https://shop.example/hook',
            created_at: '2026-01-01T00:00:00.000Z',
            deliveries: [
              { attempt: 1, at: '2026-01-01T00:00:00.100Z', latency_ms: 3, error: 'address 10.0.0.1 refused: private (RFC 1918)' },
              { attempt: 2, at: '2026-01-01T00:00:05.100Z', status_code: 503, latency_ms: 41, error: 'HTTP 503' },
            ],
          },
          {
            id: 'evt_a',
            type: 'invoice.confirming',
            merchant_id: 'm_1',
            aggregate_id: 'inv-1',
            status: 'delivered',
            attempts: 1,
            created_at: '2026-01-01T00:00:00.000Z',
            deliveries: [{ attempt: 1, at: '2026-01-01T00:00:00.050Z', status_code: 200, latency_ms: 7 }],
          },
        ],
      }),
    );
    const r = await cli(['webhooks', 'list', '--merchant', 'm_1', '--status', 'pending']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(daemon.last('listWebhooks').request).toEqual({ merchant_id: 'm_1', status: 'pending', limit: 0 });
    const [newer, older] = r.stdout.split(/\n\n(?=id )/);
    expect(newer).toMatch(/^id\s+evt_b$/m);
    expect(newer).toMatch(/^next_attempt_at\s+2026-01-01T00:05:05.000Z$/m);
    expect(newer).toMatch(/^ATTEMPT\s+AT\s+STATUS_CODE\s+LATENCY_MS\s+ERROR$/m);
    expect(newer).toMatch(/^1\s+2026-01-01T00:00:00.100Z\s+-\s+3\s+address 10\.0\.0\.1 refused: private \(RFC 1918\)$/m);
    expect(newer).toMatch(/^2\s+2026-01-01T00:00:05.100Z\s+503\s+41\s+HTTP 503$/m);
    expect(older).toMatch(/^id\s+evt_a$/m);
    expect(older).toMatch(/^1\s+2026-01-01T00:00:00.050Z\s+200\s+7\s+-$/m);
    expect(older).not.toContain('HTTP 503');

    daemon.respond('listWebhooks', () => ListWebhooksResponse.fromPartial({ events: [] }));
    expect((await cli(['webhooks', 'list'])).stdout).toBe('(none)\n');
  });

  it('invoices watch prints one JSON line per update until the stream ends', async () => {
    const inv = Invoice.fromPartial({ uuid: 'inv-1', status: 'pending', pay_amount: '10.5', received_amount: '0' });
    daemon.streamWith('watchInvoice', (call: ServerWritableStream<unknown, unknown>) => {
      call.write(InvoiceUpdate.fromPartial({ invoice: inv, reason: 'snapshot' }));
      call.write(InvoiceUpdate.fromPartial({ invoice: { ...inv, status: 'confirming', received_amount: '10.5' }, reason: 'payment' }));
      call.write(InvoiceUpdate.fromPartial({ invoice: { ...inv, status: 'paid', received_amount: '10.5' }, reason: 'status' }));
      call.end();
    });
    const r = await cli(['invoices', 'watch', 'inv-1', '--json']);
    expect(r.code).toBe(0);
    expect(daemon.last('watchInvoice').request).toEqual({ uuid: 'inv-1' });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.reason, l.invoice.status])).toEqual([
      ['snapshot', 'pending'],
      ['payment', 'confirming'],
      ['status', 'paid'],
    ]);
  });

  it('actors watch runs until aborted (Ctrl-C) and exits 0; the server sees the cancel', async () => {
    const cancelled = new Promise<void>((ok) => {
      daemon.streamWith('watchActors', (call) => {
        call.on('cancelled', () => ok());
        call.write(ActorEvent.fromPartial({ kind: 'invoice', id: 'inv-1', type: 'transfer_seen', payload_json: '{}', at: 'now' }));
      });
    });
    const abort = new AbortController();
    let stdout = '';
    const done = run(['actors', 'watch', '--kind', 'invoice', '--json'], {
      env: { CHAINPAY_GRPC_ADDR: daemon.address, CHAINPAY_OPERATOR_TOKEN: 't' },
      stdout: {
        write: (s: string) => {
          stdout += s;
          if (stdout.endsWith('\n')) abort.abort();
        },
      },
      stderr: { write: () => undefined },
      signal: abort.signal,
    });
    expect(await done).toBe(0);
    await cancelled;
    expect(JSON.parse(stdout)).toMatchObject({ kind: 'invoice', type: 'transfer_seen' });
    expect(daemon.last('watchActors').request).toEqual({ kind: 'invoice' });
  });
});

describe('errors', () => {
  it('a daemon error prints `error: <code>: <message>` from the trailing metadata and exits 1', async () => {
    daemon.fail('getMerchant', { code: status.NOT_FOUND, details: 'merchant not found', errorCode: 'merchant_not_found', field: 'merchant_id' });
    const r = await cli(['merchant', 'show', '--merchant', 'nope']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'error: merchant_not_found: merchant not found (field: merchant_id)\n' });
    const j = await cli(['merchant', 'show', '--merchant', 'nope', '--json']);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toEqual({ error: { code: 'merchant_not_found', message: 'merchant not found', field: 'merchant_id', grpc_status: 'NOT_FOUND' } });
  });

  it('without daemon metadata the code is the gRPC status name', async () => {
    const r = await cli(['actors', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: unimplemented: listActors not in this test\n$/);
  });

  it('an unreachable daemon is an error naming the address', async () => {
    const r = await cli(['balance', '--merchant', 'm_1'], { env: { CHAINPAY_GRPC_ADDR: '127.0.0.1:1' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: unavailable: cannot reach the daemon at 127\.0\.0\.1:1/);
  });

  it.each([
    [[]],
    [['frobnicate']],
    [['merchant']],
    [['merchant', 'explode']],
    [['merchant', 'create']],
    [['merchant', 'create', '--name', 'x', '--bogus']],
    [['withdrawals', 'reject', 'w-1']],
    [['withdrawals', 'approve']],
    [['withdrawals', 'approve', 'a', 'b']],
    [['devnet', 'mine', '--network', 'TON', '--blocks', 'many']],
    [['actors', 'list', '--kind', 'robot']],
    [['merchant', 'set-caps', '--merchant', 'm_1']],
  ])('usage error %j exits 2 with the usage text and calls nothing', async (argv) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: .+\n\nusage/);
    expect(r.stderr).toContain('chainpay ');
    expect(daemon.calls).toEqual([]);
  });

  it('help and --help print usage to stdout and exit 0', async () => {
    const all = await cli(['help']);
    expect(all.code).toBe(0);
    for (const c of [
      'merchant create',
      'networks set-fee',
      'whitelist add',
      'invoices watch',
      'withdrawals reject',
      'actors watch',
      'watchers rescan',
      'webhooks redeliver',
      'deposits attribute',
      'devnet advance-time',
      'sign',
    ]) {
      expect(all.stdout).toContain(`chainpay ${c}`);
    }
    const one = await cli(['devnet', 'pay', '--help']);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('chainpay devnet pay --network CODE --to ADDR --amount A');
    expect(one.stdout).not.toContain('chainpay devnet mine');
  });
});
