import { Address, toNano } from '@ton/core';
import { toBaseUnits } from '../../../src/chains/amount';
import { createMerchant, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../../support/stack';
import { backdateWhitelist, stackRpcs, whitelist, type Body } from '../../withdrawals/support';
import { TEST_MNEMONIC } from './adapter';
import type { InclusionOptions } from './inclusion';
import { SandboxChain } from './sandbox-chain';
import { startToncenter, type ToncenterServer } from './toncenter-server';

/** A live daemon on the TON harness with a merchant holding `deposit` USDT in our jetton wallet and TON for gas. */
export interface PayoutStack {
  readonly chain: SandboxChain;
  readonly server: ToncenterServer;
  readonly stack: Stack;
  readonly m: MerchantCredentials;
  readonly service: Address;
  stop(): Promise<void>;
  withdraw(to: Address, amount: string): Promise<Body>;
  signedRow(uuid: string): Promise<{ raw: string | null; meta: Record<string, string | number> | null; failureReason: string | null }>;
}

export async function startPayoutStack(o: {
  inclusion?: InclusionOptions;
  deposit: string;
  payees: (chain: SandboxChain) => Promise<Address[]>;
  env?: Record<string, string>;
  gas?: bigint;
}): Promise<PayoutStack> {
  const chain = await SandboxChain.create(undefined, o.inclusion);
  const server = await startToncenter(chain);
  const stack = await startStack({
    env: {
      HD_MNEMONIC: TEST_MNEMONIC,
      TON_RPC_URL: server.url,
      TON_JETTON_MASTER: chain.usdt.address.toString(),
      TON_POLL_INTERVAL_MS: '50',
      TON_CONFIRMATIONS: '1',
      PAYOUT_POLL_INTERVAL_MS: '100',
      ...o.env,
    },
  });
  const m = await createMerchant(stack);
  const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: o.deposit, network: 'TON' })).body;
  const service = Address.parse(inv.address);
  await chain.pay({ to: service, amount: toBaseUnits(inv.pay_amount, 6), memo: inv.memo });
  await waitForStatus(stack, m, inv.uuid, 'paid', 30_000);
  await chain.fund(service, o.gas ?? toNano('50'));
  for (const payee of await o.payees(chain)) await whitelist(stackRpcs(stack), m.merchantId, 'TON', payee.toString());
  await backdateWhitelist(stack.databaseUrl, m.merchantId);
  return {
    chain,
    server,
    stack,
    m,
    service,
    async stop() {
      chain.inclusion?.stop();
      await stack.stop();
      await server.close();
    },
    async withdraw(to, amount) {
      const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TON', address: to.toString(), amount });
      if (res.status !== 201) throw new Error(`withdrawal refused: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async signedRow(uuid) {
      const rows = await stack.daemon.orm.em
        .fork()
        .execute<{ signed_raw: string | null; signed_meta: Record<string, string | number> | null; failure_reason: string | null }[]>(
          'select signed_raw, signed_meta, failure_reason from withdrawals where uuid = ?',
          [uuid],
        );
      return { raw: rows[0]?.signed_raw ?? null, meta: rows[0]?.signed_meta ?? null, failureReason: rows[0]?.failure_reason ?? null };
    },
  };
}
