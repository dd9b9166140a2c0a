import { createHash } from 'node:crypto';
import { type Address, beginCell, type Cell, external, internal, type MessageRelaxed, SendMode, storeMessage, toNano } from '@ton/core';
import type { KeyPair } from '@ton/crypto';
import type { WalletContractV4 } from '@ton/ton';
import { JETTON_OP } from './jetton-messages';

/** TON attached to each transfer for our jetton wallet's gas; the excess comes back to the service wallet. */
export const PAYOUT_GAS = toNano('0.05');
/** What the service wallet must hold to send one transfer: the gas above plus its own fees. */
export const PAYOUT_GAS_NEEDED = toNano('0.06');
/** Wallet v4 sends at most 4 internal messages per external message. */
export const MAX_TRANSFERS_PER_MESSAGE = 4;

/** A payout's query_id: the first 64 bits of SHA-256 of its key (the withdrawal uuid), the same on every signing. */
export function payoutQueryId(key: string): bigint {
  return createHash('sha256').update(key).digest().readBigUInt64BE(0);
}

/** One jetton transfer of an external message. */
export interface PayoutTransfer {
  readonly queryId: bigint;
  readonly to: Address;
  /** Base units. */
  readonly amount: bigint;
  /** A text comment for the payee (exchanges need one), carried in the forward payload; none when absent. */
  readonly comment?: string;
}

export interface PayoutOrder {
  readonly wallet: WalletContractV4;
  readonly keyPair: KeyPair;
  readonly seqno: number;
  /** Unix seconds; wallet v4 refuses the message after it, at every seqno (0 included). */
  readonly validUntil: number;
  /** 1 to MAX_TRANSFERS_PER_MESSAGE transfers (transferMessage), each its own internal message to our jetton wallet. */
  readonly messages: readonly MessageRelaxed[];
  /** Include the wallet's state init (the wallet is not deployed yet). */
  readonly deploy: boolean;
}

/**
 * The internal message ordering our jetton wallet to `transfer` (TEP-74): query_id = the payout's
 * key, response_destination = our wallet, forward_ton_amount 1 nanoton (the payee gets a
 * notification), the comment (if any) as a text comment in a ref. The same transfer always gives the
 * same message body: a later version of a batch carries it unchanged (payout-batches.ts relies on it).
 */
export function transferMessage(wallet: Address, jettonWallet: Address, t: PayoutTransfer): MessageRelaxed {
  const body = beginCell()
    .storeUint(JETTON_OP.transfer, 32)
    .storeUint(t.queryId, 64)
    .storeCoins(t.amount)
    .storeAddress(t.to)
    .storeAddress(wallet)
    .storeBit(false) // no custom_payload
    .storeCoins(1n);
  if (t.comment === undefined) body.storeBit(false);
  else body.storeBit(true).storeRef(beginCell().storeUint(0, 32).storeStringTail(t.comment).endCell());
  return internal({ to: jettonWallet, value: PAYOUT_GAS, bounce: true, body: body.endCell() });
}

/** The external message to our service wallet carrying the transfers. Returns the message cell: its BOC is stored before it is sent. */
export function signOrder(o: PayoutOrder): Cell {
  if (o.messages.length < 1 || o.messages.length > MAX_TRANSFERS_PER_MESSAGE) throw new RangeError(`a wallet v4 message carries 1 to ${MAX_TRANSFERS_PER_MESSAGE} transfers, not ${o.messages.length}`);
  const body = o.wallet.createTransfer({
    seqno: o.seqno,
    secretKey: o.keyPair.secretKey,
    timeout: o.validUntil,
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: [...o.messages],
  });
  const message = external({ to: o.wallet.address, ...(o.deploy ? { init: o.wallet.init } : {}), body });
  return beginCell().store(storeMessage(message)).endCell();
}
