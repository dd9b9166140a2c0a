import { Address } from '@ton/core';
import type { TonRpc } from './client';

/** A payee refused (ChainAdapter.payeeAccountRefusal): the 422 code and a message naming what to use instead. */
export interface PayeeRefusal {
  readonly code: string;
  readonly message: string;
}

/**
 * A jetton wallet is no payee: jettons sent to it land in ITS jetton wallet (a wallet of a wallet),
 * which nobody can spend. An account that answers `get_wallet_data` (TEP-74: balance, owner, master,
 * code) is one; the refusal names its owner, the address to use instead. Any other answer (no code,
 * no such method) is a wallet or an address not deployed yet: fine. A node that does not answer
 * throws (the caller retries; nothing is listed or paid on a guess).
 */
export async function jettonWalletRefusal(rpc: TonRpc, address: string): Promise<PayeeRefusal | null> {
  let target: Address;
  try {
    target = Address.parse(address);
  } catch {
    return null; // the address check says invalid_address first
  }
  const { exitCode, stack } = await rpc.tryGet(target, 'get_wallet_data');
  if (exitCode !== 0 && exitCode !== 1) return null;
  let owner: Address;
  try {
    stack.readBigNumber(); // balance
    owner = stack.readAddress();
  } catch {
    return null; // answers something else under that name: not a TEP-74 jetton wallet
  }
  const ownerText = owner.toString({ bounceable: false, urlSafe: true });
  return {
    code: 'payee_is_jetton_wallet',
    message: `${address} is a jetton wallet (jettons sent to it are lost); send to its owner ${ownerText} instead`,
  };
}
