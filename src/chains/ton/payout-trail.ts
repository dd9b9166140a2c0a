import { type Address, Cell, loadMessage, loadMessageRelaxed, type MessageRelaxed, type Transaction } from '@ton/core';
import { JETTON_OP, succeeded } from './jetton-messages';

/**
 * Readers of the messages a payout leaves on the chain, each anchored on who sent it (issue 45):
 * anyone can send any op with any query_id to any account; what cannot be forged is an internal
 * message's source address and its `bounced` flag (the chain sets both). So a payout's transfer counts
 * only when our service wallet sent it, its arrival only on the payee's jetton wallet from our jetton
 * wallet, its bounce only from the payee's jetton wallet.
 */

/** Our jetton wallet's transaction for our service wallet's `transfer` with this query_id; null for any other. */
export function isOurTransfer(tx: Transaction, serviceWallet: Address, queryId: bigint): boolean {
  const msg = tx.inMessage;
  if (msg?.info.type !== 'internal' || msg.info.bounced || !msg.info.src.equals(serviceWallet)) return false;
  const body = msg.body.beginParse();
  if (body.remainingBits < 96 || body.loadUint(32) !== JETTON_OP.transfer) return false;
  return body.loadUintBig(64) === queryId;
}

/** Where our jetton wallet sent the jettons: the `internal_transfer` it emitted (payee's jetton wallet, the message's lt). */
export interface SentTransfer {
  readonly payeeWallet: Address;
  readonly createdLt: bigint;
}

export function sentTransferOf(tx: Transaction): SentTransfer | null {
  for (const out of tx.outMessages.values()) {
    if (out.info.type !== 'internal') continue;
    const body = out.body.beginParse();
    if (body.remainingBits >= 32 && body.loadUint(32) === JETTON_OP.internalTransfer) return { payeeWallet: out.info.dest, createdLt: out.info.createdLt };
  }
  return null;
}

/** A bounce of our `internal_transfer` with this query_id coming back from the payee's jetton wallet (the jettons return to us). */
export function isBounceFrom(tx: Transaction, payeeWallet: Address, queryId: bigint): boolean {
  const msg = tx.inMessage;
  if (msg?.info.type !== 'internal' || !msg.info.bounced || !msg.info.src.equals(payeeWallet)) return false;
  const body = msg.body.beginParse();
  if (body.remainingBits < 128 || body.loadUint(32) !== JETTON_OP.bounced || body.loadUint(32) !== JETTON_OP.internalTransfer) return false;
  return body.loadUintBig(64) === queryId;
}

/**
 * The payee's jetton wallet's transaction for our `internal_transfer` (from our jetton wallet, that
 * very message: a sender's message lt is unique): 'arrived' when it succeeded (the payee holds the
 * jettons), 'refused' when it failed (a bounce brings them back), null for any other transaction.
 */
export function arrivalOf(tx: Transaction, ourJettonWallet: Address, sent: SentTransfer): 'arrived' | 'refused' | null {
  const msg = tx.inMessage;
  if (msg?.info.type !== 'internal' || msg.info.bounced || !msg.info.src.equals(ourJettonWallet) || msg.info.createdLt !== sent.createdLt) return null;
  return succeeded(tx) ? 'arrived' : 'refused';
}

export interface OrderedTransfer {
  readonly bodyHash: string;
  readonly queryId: bigint | null;
  readonly message: MessageRelaxed;
}

/** What one signed wallet v4 external message orders: its seqno and the body hash of each internal message it sends. */
export interface WalletOrder {
  readonly seqno: number;
  readonly validUntil: number;
  /** The internal messages it sends: their body's cell hash (hex) and, for a jetton `transfer`, its query_id. */
  readonly transfers: readonly OrderedTransfer[];
  /** Hash of the external message's body (what the wallet's transaction received). */
  readonly bodyHash: string;
}

/**
 * A wallet v4 external body: signature (512 bits), subwallet_id, valid_until, seqno (32 bits each),
 * op (8 bits), then per internal message a send mode (8 bits) and the message in a ref. Null for a
 * body of another shape (a foreign wallet's message cannot be one of ours).
 */
export function walletOrderOf(body: Cell): WalletOrder | null {
  try {
    const s = body.beginParse();
    s.skip(512 + 32);
    const validUntil = s.loadUint(32);
    const seqno = s.loadUint(32);
    const transfers: OrderedTransfer[] = [];
    if (s.remainingBits >= 8) s.skip(8);
    while (s.remainingRefs > 0) {
      if (s.remainingBits >= 8) s.skip(8); // send mode
      const message = loadMessageRelaxed(s.loadRef().beginParse());
      transfers.push({ bodyHash: message.body.hash().toString('hex'), queryId: transferQueryIdOf(message.body), message });
    }
    return { seqno, validUntil, transfers, bodyHash: body.hash().toString('hex') };
  } catch {
    return null;
  }
}

/** The order inside a stored payout (the external message's BOC, base64). */
export function storedOrderOf(raw: string): WalletOrder | null {
  return walletOrderOf(loadMessage(Cell.fromBase64(raw).beginParse()).body);
}

/** The service wallet's transaction that ran an external message, and the order it ran; null for other transactions. */
export function externalOrderOf(tx: Transaction): WalletOrder | null {
  const msg = tx.inMessage;
  if (msg?.info.type !== 'external-in') return null;
  return walletOrderOf(msg.body);
}

function transferQueryIdOf(body: Cell): bigint | null {
  const s = body.beginParse();
  if (s.remainingBits < 96 || s.loadUint(32) !== JETTON_OP.transfer) return null;
  return s.loadUintBig(64);
}
