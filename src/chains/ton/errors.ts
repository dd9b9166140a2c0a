import type { PayoutOperatorAlert } from '../errors';
/** Errors of the TON adapter; callers branch on the class or `code`, never on the message. */
export abstract class TonAdapterError extends Error {
  abstract readonly code: string;
  constructor(
    message: string,
    readonly details: Record<string, string | number | boolean | null> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A TON setting is missing or malformed; `variable` names the environment variable to fix. */
export class TonConfigError extends TonAdapterError {
  override readonly name = 'TonConfigError';
  readonly code = 'ton_config_invalid';
  constructor(
    readonly variable: string,
    why: string,
  ) {
    super(`${variable}: ${why}`, { variable });
  }
}

/** The configured jetton master did not answer get_wallet_address: nothing can be anchored, refuse to start. */
export class JettonMasterUnansweredError extends TonAdapterError {
  override readonly name = 'JettonMasterUnansweredError';
  readonly code = 'jetton_master_unanswered';
  readonly variable = 'TON_JETTON_MASTER';
  constructor(master: string, cause: unknown) {
    super(`TON_JETTON_MASTER ${master} did not answer get_wallet_address (is it a jetton master on this network, and is TON_RPC_URL right?)`, { master, variable: 'TON_JETTON_MASTER' }, { cause });
  }
}

export class TonNotInitializedError extends TonAdapterError {
  override readonly name = 'TonNotInitializedError';
  readonly code = 'adapter_not_initialized';
  constructor() {
    super('TON: call init() first');
  }
}

/**
 * The node no longer serves our jetton wallet's history back to the cursor (not an archival node).
 * Not retried: the same node answers the same; the watcher halts (watcher_halted) until an operator
 * points TON_RPC_URL at an archival node and resumes it (nothing is skipped: the cursor stays).
 */
export class TonHistoryGapError extends TonAdapterError {
  override readonly name = 'TonHistoryGapError';
  readonly code = 'ton_history_gap';
  constructor(cursorLt: string, reachedLt: string) {
    super(`TON: the node's transaction history ended at lt ${reachedLt} before the cursor (lt ${cursorLt}); use an archival node (TON_RPC_URL)`, { cursorLt, reachedLt });
  }
}

/** A sent external message was refused and the wallet's seqno did not move: retried (the status check decides). */
export class TonPayoutBroadcastError extends TonAdapterError {
  override readonly name = 'TonPayoutBroadcastError';
  readonly code = 'payout_broadcast_failed';
  constructor(txHash: string, seqno: number, cause: unknown) {
    super(`TON payout ${txHash} (seqno ${seqno}) was not accepted: ${cause instanceof Error ? cause.message : String(cause)}`, { txHash, seqno }, { cause });
  }
}

/**
 * The service wallet holds too little TON to pay a payout's gas. Not permanent: the withdrawal keeps
 * waiting (retried) while an operator funds the wallet; the message says what to top up.
 */
export class TonPayoutGasShortError extends TonAdapterError {
  override readonly name = 'TonPayoutGasShortError';
  readonly code = 'payout_gas_short';
  readonly operatorAlert: PayoutOperatorAlert = 'hot_wallet_underfunded';
  constructor(wallet: string, balance: string, needed: string) {
    super(`TON service wallet ${wallet} holds ${balance} nanoton, a payout needs ${needed}: fund it with TON (the withdrawal waits)`, { wallet, balance, needed });
  }
}

/**
 * A new attempt of a payout was asked without this process having seen its previous message expire
 * (payoutStatus answers `expired` under the same row lock just before; the host retries, asking again).
 * Never guessed: re-signing at another seqno than the expired one's could leave a gap in the queue.
 */
export class TonPayoutResignUnprovenError extends TonAdapterError {
  override readonly name = 'TonPayoutResignUnprovenError';
  readonly code = 'payout_resign_unproven';
  constructor(withdrawal: string, attempt: number) {
    super(`TON payout ${withdrawal} attempt ${attempt}: its previous message was not seen expired; not signed anew (retried)`, { withdrawal, attempt });
  }
}

/**
 * The service wallet's seqno of this payout was used by an external message that carries neither this
 * payout's transfer nor only transfers of the payout's own batch (an operator using the exported key,
 * or another payout signed at the same seqno after a reservation expired). The payout's message can
 * never run, but what the other message paid is for an operator to judge: the withdrawal waits for one
 * (code shared with EVM: domain NEEDS_OPERATOR_CODES), its amount held, never signed anew or released.
 */
export class TonPayoutSeqnoConsumedError extends TonAdapterError {
  override readonly name = 'TonPayoutSeqnoConsumedError';
  readonly code = 'payout_nonce_consumed';
  constructor(txHash: string, seqno: number, wallet: string) {
    super(`TON service wallet ${wallet} ran another message at seqno ${seqno}: payout ${txHash} can never run (look up that seqno's transaction, then wait or reject)`, { txHash, seqno, wallet });
  }
}

/**
 * A payout re-signed at its seqno would join a batch (one external message, up to 4 transfers) whose
 * newest member is not committed on its withdrawal row yet. Retried: signing it now could put a
 * transfer whose row may still roll back into a message that runs.
 */
export class TonPayoutBatchBusyError extends TonAdapterError {
  override readonly name = 'TonPayoutBatchBusyError';
  readonly code = 'payout_batch_busy';
  constructor(withdrawal: string, seqno: number) {
    super(`TON payout ${withdrawal}: the batch at seqno ${seqno} has a member not stored yet; retried`, { withdrawal, seqno });
  }
}
