import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toBaseUnits } from '../../src/chains/amount';
import { TEST_MNEMONIC } from '../evm/support/adapter';
import { createMerchant, eventually, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { backdateWhitelist, stackRpcs, whitelist } from '../withdrawals/support';
import { testTronCodec } from './support/adapter';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(120_000);

/**
 * Issue 45 item 7, "a node that does not answer a balance or a simulation is retried, never a failed
 * withdrawal", on the TRON harness. TronGrid load-balances over backends; one out of sync answers
 * `{}` to `triggerconstantcontract` (the balanceOf read and the transfer's simulation). A proxy in
 * front of the harness plays that backend for chosen calls. Before, the first `{}` failed the
 * withdrawal (`payout_rejected: the token answered no balanceOf`) and released its hold.
 */
class OutOfSyncBackend {
  private server!: http.Server;
  /** 1-based numbers of the triggerconstantcontract calls (counted once armed) answered `{}`. */
  empties = new Set<number>();
  armed = false;
  calls = 0;
  answeredEmpty = 0;

  constructor(private readonly upstream: string) {}

  async listen(): Promise<string> {
    this.server = http.createServer((req, res) => void this.forward(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (this.armed && (req.url ?? '').includes('wallet/triggerconstantcontract')) {
      this.calls += 1;
      if (this.empties.has(this.calls)) {
        this.answeredEmpty += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
    const answer = await fetch(`${this.upstream}${req.url}`, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('TRC20: a backend out of sync answers {} to the balance and the simulation', () => {
  let chain: TronTestChain;
  let backend: OutOfSyncBackend;
  let stack: Stack;
  let m: MerchantCredentials;
  const codec = testTronCodec();
  const hot = codec.hotWallet().address;
  const payee = codec.sampleAddress('tron out-of-sync payee');

  beforeAll(async () => {
    chain = await TronTestChain.start();
    chain.server.solidLag = 2;
    await chain.mintUsdt(hot, 50n * 10n ** 6n);
    await chain.produce(1);
    chain.setTrx(hot, 100n);
    backend = new OutOfSyncBackend(chain.url);
    const url = await backend.listen();
    stack = await startStack({
      env: { HD_MNEMONIC: TEST_MNEMONIC, TRC20_RPC_URL: url, TRC20_TOKEN_ADDRESS: chain.usdt, TRC20_CONFIRMATIONS: '3', TRC20_POLL_INTERVAL_MS: '50', PAYOUT_POLL_INTERVAL_MS: '150' },
    });
    m = await createMerchant(stack);
    const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '20', network: 'TRC20' })).body;
    await chain.pay(inv.address, toBaseUnits(inv.pay_amount, 6));
    await eventually(
      async () => {
        await chain.produce(1);
        return (await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body.status === 'paid' ? true : undefined;
      },
      30_000,
      'funding invoice paid',
    );
    await whitelist(stackRpcs(stack), m.merchantId, 'TRC20', payee);
    await backdateWhitelist(stack.databaseUrl, m.merchantId);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await backend?.close();
    await chain?.stop();
  });

  it('the withdrawal stays processing through the empty answers (the funds check and the signing both meet one), then is paid once', async () => {
    // Per attempt: the host's check (balanceOf, simulation), then the signing (balanceOf, simulation).
    // Empty answers at calls 1, 3, 6 and 8 hit each of them at least once.
    backend.empties = new Set([1, 3, 6, 8]);
    backend.armed = true;
    const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '10' });
    expect(res.status).toBe(201);
    const uuid = res.body.uuid as string;
    const statuses = new Set<string>();
    const done = await eventually(
      async () => {
        await chain.produce(1);
        const w = (await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`)).body;
        statuses.add(w.status);
        return w.status === 'completed' || w.status === 'failed' ? w : undefined;
      },
      60_000,
      'the withdrawal to end',
    );
    expect(backend.answeredEmpty).toBe(4);
    expect(done).toMatchObject({ status: 'completed', failure_reason: null });
    expect([...statuses]).not.toContain('failed');
    expect(await chain.usdtBalance(payee)).toBe(9_000_000n);
    const [row] = await stack.daemon.orm.em.fork().execute<{ payout_attempt: number }[]>('select payout_attempt from withdrawals where uuid = ?', [uuid]);
    expect(row!.payout_attempt).toBe(0);
  });
});
