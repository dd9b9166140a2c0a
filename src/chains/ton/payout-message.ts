import { createHash } from 'node:crypto';
import { type Address, beginCell, type Cell, comment, external, internal, SendMode, storeMessage, toNano } from '@ton/core';
import type { KeyPair } from '@ton/crypto';
import type { WalletContractV4 } from '@ton/ton';
import { JETTON_OP } from './jetton-messages';

/** TON attached to the order for our jetton wallet's gas; the excess comes back to the service wallet. */
export const PAYOUT_GAS = toNano('0.05');
/** What the service wallet must hold to send a payout: the gas above plus its own fees. */
export const PAYOUT_GAS_NEEDED = toNano('0.06');

/** A payout's query_id: the first 64 bits of SHA-256 of its key (the withdrawal uuid), the same on every signing. */
export function payoutQueryId(key: string): bigint {
  return createHash('sha256').update(key).digest().readBigUInt64BE(0);
}

export interface PayoutOrder {
  readonly wallet: WalletContractV4;
  readonly keyPair: KeyPair;
  readonly jettonWallet: Address;
  readonly seqno: number;
  /** Unix seconds; ignored by wallet v4 at seqno 0 (its deploying message never expires). */
  readonly validUntil: number;
  readonly queryId: bigint;
  readonly to: Address;
  readonly amount: bigint;
  /** Include the wallet's state init (the wallet is not deployed yet). */
  readonly deploy: boolean;
  /** The withdrawal's memo: a text comment (op 0 + snake string) in the forward payload, for the payee's exchange. */
  readonly comment?: string;
}

/**
 * The external message to our service wallet ordering its jetton wallet to `transfer` (TEP-74):
 * query_id = the payout's key, response_destination = our wallet, forward_ton_amount 1 nanoton (the
 * payee gets a notification, with the comment when there is one). Returns the message cell: its BOC is stored before it is sent.
 */
export function payoutMessage(o: PayoutOrder): Cell {
  const transfer = beginCell()
    .storeUint(JETTON_OP.transfer, 32)
    .storeUint(o.queryId, 64)
    .storeCoins(o.amount)
    .storeAddress(o.to)
    .storeAddress(o.wallet.address)
    .storeBit(false) // no custom_payload
    .storeCoins(1n)
    // forward_payload (Either Cell ^Cell): the comment in a ref (any length, snake cells), else empty inline.
    .storeMaybeRef(o.comment === undefined ? null : comment(o.comment))
    .endCell();
  const body = o.wallet.createTransfer({
    seqno: o.seqno,
    secretKey: o.keyPair.secretKey,
    timeout: o.validUntil,
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: [internal({ to: o.jettonWallet, value: PAYOUT_GAS, bounce: true, body: transfer })],
  });
  const message = external({ to: o.wallet.address, ...(o.deploy ? { init: o.wallet.init } : {}), body });
  return beginCell().store(storeMessage(message)).endCell();
}
