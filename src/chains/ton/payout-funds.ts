import { Address, fromNano } from '@ton/core';
import { fromBaseUnits, toBaseUnits } from '../amount';
import type { PayoutFunds, PayoutFundsRequest, PayoutShortfall } from '../types';
import type { TonRpc } from './client';
import { PAYOUT_GAS_NEEDED } from './payout-message';

export interface TonFundsDeps {
  readonly rpc: TonRpc;
  /** Our service wallet (the payer) and its jetton wallet (what holds the USDT). */
  readonly serviceWallet: string;
  readonly jettonWallet: Address;
  readonly decimals: number;
}

/**
 * ChainAdapter.payoutFunds on TON: our jetton wallet's balance (get_wallet_data; 0 while it is not
 * deployed) against this payout plus those in flight, and the service wallet's TON against their
 * gas (PAYOUT_GAS_NEEDED each). Without it a short jetton wallet refuses the transfer on chain, after
 * the external message was signed, sent and its gas burnt. A node that does not answer throws.
 */
export async function tonPayoutFunds(deps: TonFundsDeps, request: PayoutFundsRequest): Promise<PayoutFunds> {
  const { rpc, jettonWallet, decimals } = deps;
  const wallet = Address.parse(deps.serviceWallet);
  const neededTokens = toBaseUnits(request.amount, decimals) + toBaseUnits(request.inFlight.amount, decimals);
  const [jw, service] = await Promise.all([rpc.state(jettonWallet), rpc.state(wallet)]);
  const tokens = jw.active ? (await rpc.get(jettonWallet, 'get_wallet_data')).readBigNumber() : 0n;
  const neededGas = PAYOUT_GAS_NEEDED * BigInt(request.inFlight.count + 1);
  const shortfalls: PayoutShortfall[] = [];
  if (tokens < neededTokens) shortfalls.push({ kind: 'token', asset: 'USDT', balance: fromBaseUnits(tokens, decimals), needed: fromBaseUnits(neededTokens, decimals) });
  if (service.balance < neededGas) shortfalls.push({ kind: 'gas', asset: 'TON', balance: fromNano(service.balance), needed: fromNano(neededGas) });
  return { wallet: wallet.toString({ bounceable: false, urlSafe: true }), shortfalls };
}
