import * as grpc from '@grpc/grpc-js';
import { createAddressCodec } from '../../../src/chains/codecs';
import { DevnetServiceClient } from '../../../src/grpc/generated/chainpay/v1/devnet';
import { InvoiceServiceClient, type CreateInvoiceResponse } from '../../../src/grpc/generated/chainpay/v1/invoices';
import { MerchantServiceClient, type Balance } from '../../../src/grpc/generated/chainpay/v1/merchants';
import { WithdrawalServiceClient } from '../../../src/grpc/generated/chainpay/v1/withdrawals';
import type { Server } from './context';

/**
 * Sets merchants up for withdrawals through the daemon's own gRPC API, as an operator would:
 * caps, balances funded by devnet invoices paid in full, a whitelisted address past its cooldown.
 */
export class WithdrawalSetup {
  private readonly merchants: MerchantServiceClient;
  private readonly invoices: InvoiceServiceClient;
  private readonly devnet: DevnetServiceClient;
  private readonly withdrawals: WithdrawalServiceClient;
  private readonly operator = new grpc.Metadata();

  constructor(
    server: Server,
    readonly network: string,
  ) {
    const address = `127.0.0.1:${server.started.grpcPort}`;
    const creds = grpc.credentials.createInsecure();
    this.merchants = new MerchantServiceClient(address, creds);
    this.invoices = new InvoiceServiceClient(address, creds);
    this.devnet = new DevnetServiceClient(address, creds);
    this.withdrawals = new WithdrawalServiceClient(address, creds);
    this.operator.set('authorization', `Bearer ${server.started.operatorToken}`);
  }

  /** A valid address of the network that is none of ours. */
  payoutAddress(seed: string): string {
    return createAddressCodec(this.network as never, {}).sampleAddress(`bench-payout:${seed}`);
  }

  async caps(merchantId: string, perWithdrawal: string, daily: string): Promise<void> {
    await call((cb) => this.merchants.updateMerchant({ merchant_id: merchantId, cap_per_withdrawal: perWithdrawal, cap_daily: daily }, this.operator, cb));
  }

  async whitelist(merchantId: string, address: string): Promise<void> {
    await call((cb) => this.withdrawals.addWhitelist({ merchant_id: merchantId, network: this.network, address }, this.operator, cb));
  }

  /** Moves the daemon clock on (past the whitelist cooldown). */
  async advance(seconds: number): Promise<void> {
    await call((cb) => this.devnet.advanceTime({ seconds: String(seconds) }, this.operator, cb));
  }

  /** Credits each merchant `amount`: one invoice each, paid exactly on devnet, mined to final. */
  async fund(merchantIds: readonly string[], amount: string): Promise<void> {
    const invoices: { merchantId: string; uuid: string }[] = [];
    let confirmations = 1;
    for (const batch of chunks(merchantIds, 20)) {
      await Promise.all(
        batch.map(async (merchantId) => {
          const md = this.forMerchant(merchantId);
          const res = await call<CreateInvoiceResponse>((cb) => this.invoices.createInvoice({ amount, network: this.network }, md, cb));
          const inv = res.invoice!;
          confirmations = inv.required_confirmations;
          await call((cb) => this.devnet.pay({ network: this.network, to: inv.address!, amount: inv.pay_amount }, this.operator, cb));
          invoices.push({ merchantId, uuid: inv.uuid });
        }),
      );
    }
    await call((cb) => this.devnet.mine({ network: this.network, blocks: confirmations }, this.operator, cb));
    for (const inv of invoices) {
      await until(async () => {
        const got = await call<{ status: string }>((cb) => this.invoices.getInvoice({ uuid: inv.uuid }, this.forMerchant(inv.merchantId), cb));
        return got.status === 'paid';
      }, `funding invoice ${inv.uuid} to be paid`);
    }
  }

  /** Mines a block at a time until no withdrawal is open any more (every payout completed). */
  async settlePayouts(openCount: () => Promise<number>, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await openCount()) > 0) {
      if (Date.now() > deadline) throw new Error(`payouts still open after ${timeoutMs} ms`);
      await call((cb) => this.devnet.mine({ network: this.network, blocks: 1 }, this.operator, cb));
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async balance(merchantId: string): Promise<Balance> {
    return call<Balance>((cb) => this.merchants.getBalance({ merchant_id: merchantId }, this.operator, cb));
  }

  close(): void {
    for (const c of [this.merchants, this.invoices, this.devnet, this.withdrawals]) c.close();
  }

  private forMerchant(merchantId: string): grpc.Metadata {
    const md = this.operator.clone();
    md.set('x-merchant-id', merchantId);
    return md;
  }
}

function call<T = unknown>(invoke: (cb: (err: grpc.ServiceError | null, res: T) => void) => unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    invoke((err, res) => (err ? reject(err) : resolve(res)));
  });
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
