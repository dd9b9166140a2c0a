import type { Address, Slice, Transaction } from '@ton/core';

/** TEP-74 op codes. */
export const JETTON_OP = {
  transfer: 0x0f8a7ea5,
  internalTransfer: 0x178d4519,
  /** A bounced message's body starts with 0xffffffff, then the first bits of the original body. */
  bounced: 0xffffffff,
} as const;

/** The text-comment op of a forward payload; anything else (0x2167da4b encrypted, binary) is no memo. */
const TEXT_COMMENT = 0;

/** Longest memo stored (the payment rows hold 128 characters); a real invoice memo is far shorter. */
const MEMO_MAX = 128;

/**
 * A transaction the chain carried out completely: an ordinary transaction, not aborted, its compute
 * phase ran and succeeded, and its action phase (if any) succeeded. Only such a transaction changed
 * a jetton wallet's balance.
 */
export function succeeded(tx: Transaction): boolean {
  const d = tx.description;
  if (d.type !== 'generic' || d.aborted) return false;
  if (d.computePhase.type !== 'vm' || !d.computePhase.success) return false;
  return d.actionPhase === undefined || d.actionPhase === null || d.actionPhase.success;
}

/** The fields of an `internal_transfer` our jetton wallet accepted. */
export interface InternalTransfer {
  readonly queryId: bigint;
  /** Base units. */
  readonly amount: bigint;
  /** The sending wallet's owner (the payer), as the body states it. */
  readonly from: Address | null;
  readonly forwardTonAmount: bigint;
  readonly memo: string | null;
}

/**
 * The jetton credit a transaction made on our jetton wallet, or null when it made none: the
 * in-message must be internal and not bounced, the body op `internal_transfer`, the transaction
 * successful (the standard wallet accepts that op only from its master or a wallet of the same
 * master, so this is real USDT). Nothing else counts: a transfer_notification to our wallet,
 * a look-alike jetton (another master, so another wallet), a bounce restoring our balance.
 */
export function internalTransferOf(tx: Transaction): InternalTransfer | null {
  const msg = tx.inMessage;
  if (msg?.info.type !== 'internal' || msg.info.bounced) return null;
  if (!succeeded(tx)) return null;
  const body = msg.body.beginParse();
  if (body.remainingBits < 32 || body.loadUint(32) !== JETTON_OP.internalTransfer) return null;
  // The wallet parsed these same fields to accept the message: a failure here is a bug, not input.
  const queryId = body.loadUintBig(64);
  const amount = body.loadCoins();
  const from = body.loadMaybeAddress();
  body.loadMaybeAddress(); // response_destination
  const forwardTonAmount = body.remainingBits > 0 ? body.loadCoins() : 0n;
  return { queryId, amount, from, forwardTonAmount, memo: forwardComment(body) };
}

/**
 * The text comment of a forward payload (`Either Cell ^Cell`): op 0 then a snake string, its tail
 * followed through refs. Absent, encrypted (0x2167da4b), binary or unreadable: null.
 */
export function forwardComment(rest: Slice): string | null {
  try {
    if (rest.remainingBits < 1) return null;
    const payload = rest.loadBit() ? rest.loadRef().beginParse() : rest;
    if (payload.remainingBits < 32 || payload.loadUint(32) !== TEXT_COMMENT) return null;
    // NUL cannot be stored in a text column; nobody's memo contains one.
    const text = payload.loadStringTail().replaceAll('\u0000', '');
    return text.length === 0 ? null : text.slice(0, MEMO_MAX);
  } catch {
    return null;
  }
}

/** The query_id of a `transfer` (0x0f8a7ea5) in-message, or null. */
export function transferQueryId(tx: Transaction): bigint | null {
  const msg = tx.inMessage;
  if (msg?.info.type !== 'internal' || msg.info.bounced) return null;
  const body = msg.body.beginParse();
  if (body.remainingBits < 96 || body.loadUint(32) !== JETTON_OP.transfer) return null;
  return body.loadUintBig(64);
}

/** The query_id of a bounced `internal_transfer` coming back to our jetton wallet (our payout failed downstream), or null. */
export function bouncedTransferQueryId(tx: Transaction): bigint | null {
  const msg = tx.inMessage;
  if (msg?.info.type !== 'internal' || !msg.info.bounced) return null;
  const body = msg.body.beginParse();
  if (body.remainingBits < 128 || body.loadUint(32) !== JETTON_OP.bounced || body.loadUint(32) !== JETTON_OP.internalTransfer) return null;
  return body.loadUintBig(64);
}
