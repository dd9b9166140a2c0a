import type { Logger } from 'pino';
import { toDecimal, formatAmount } from '../../domain/decimal';
import { DomainError } from '../../domain/errors';
import { AWAITING_FUNDS } from '../../domain/withdrawal-context';
import type { ChainAdapter, PayoutFunds, PayoutShortfall } from '../../chains/types';
import type { Query } from '../../store/raw-sql';

/** The operator alert of a payout waiting for liquidity (chains/errors.ts PayoutOperatorAlert). */
export const UNDERFUNDED_ALERT = 'hot_wallet_underfunded';

/** Withdrawals whose last alert is remembered (then forgotten all at once: at worst an alert is logged again). */
const ALERTED_MAX = 10_000;

/** What the payouts already signed on a network, and not yet seen on the chain, will take from its hot wallet. */
export interface InFlightPayouts {
  readonly amount: string;
  readonly count: number;
}

/**
 * The hot wallet cannot pay this payout (USDT and/or the gas coin): nothing was signed. `unavailable`:
 * never a failure; the withdrawal waits in processing.fundsWait (its amount held) and is signed once the
 * wallet can pay. The message says what to send where; `send` lists it per asset (amount, asset).
 */
export class HotWalletShortError extends DomainError {
  override readonly name = 'HotWalletShortError';
  readonly operatorAlert = UNDERFUNDED_ALERT;
  readonly send: readonly { readonly kind: 'token' | 'gas'; readonly asset: string; readonly amount: string }[];
  constructor(
    readonly network: string,
    readonly wallet: string,
    readonly shortfalls: readonly PayoutShortfall[],
    inFlight: InFlightPayouts,
  ) {
    const send = shortfalls.map((s) => ({ kind: s.kind, asset: s.asset, amount: formatAmount(toDecimal(s.needed).minus(toDecimal(s.balance))) }));
    const what = send.map((s) => `${s.amount} ${s.asset}`).join(' and ');
    const held = shortfalls.map((s) => `${s.balance} ${s.asset} held, ${s.needed} needed`).join('; ');
    const queue = inFlight.count > 0 ? ` (counting ${inFlight.count} payout(s) of ${inFlight.amount} USDT signed before it)` : '';
    super(
      'unavailable',
      AWAITING_FUNDS,
      `${network} hot wallet ${wallet} cannot pay this payout: send ${what} to ${wallet} on ${network} (${held}${queue}); the withdrawal waits and is paid once it can`,
      undefined,
      {
        network,
        wallet,
        send: what,
        token_short: send.find((s) => s.kind === 'token')?.amount ?? null,
        gas_short: send.find((s) => s.kind === 'gas')?.amount ?? null,
        gas_coin: send.find((s) => s.kind === 'gas')?.asset ?? null,
      },
    );
    this.send = send;
  }
}

/** The family could not read the hot wallet's balances (its node did not answer): retried, never a failure. */
export class PayoutFundsUnansweredError extends Error {
  override readonly name = 'PayoutFundsUnansweredError';
  readonly code = 'payout_funds_unanswered';
  constructor(
    readonly network: string,
    cause: unknown,
  ) {
    super(`${network}: the hot wallet's balances could not be read (${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}); asked again next poll`, { cause });
  }
}

/**
 * Open payouts of `network` stored signed and not yet seen mined (confirmations 0), leaving out
 * `exceptUuid` (the payout being signed: a re-signing after expiry replaces its own). A payout mined
 * but not yet counted by its actor is counted twice for a poll (the chain's balance already fell):
 * that errs towards waiting, never towards signing what the wallet cannot pay.
 */
export async function inFlightPayouts(q: Query, network: string, exceptUuid: string): Promise<InFlightPayouts> {
  const [row] = await q<{ n: string; amount: string }>(
    `select count(*)::text as n, coalesce(trim_scale(sum(net_payout)), 0)::text as amount from withdrawals
      where status = 'processing' and open and signed_raw is not null and confirmations = 0 and network = $1 and uuid <> $2::uuid`,
    [network, exceptUuid],
    'chainpay_payout_in_flight',
  );
  return { count: Number(row?.n ?? 0), amount: row?.amount ?? '0' };
}

/**
 * The host's rule for a hot wallet short of money, the same for every family (docs/operations.md,
 * "A hot wallet short of money"): before a new signature, ask the family whether the wallet can pay
 * this payout on top of those in flight; if not, nothing is signed and HotWalletShortError makes the
 * withdrawal wait. Signings of one network run one at a time here (check, sign and store in one
 * turn), so two payouts never both pass on the same balance.
 */
export class PayoutFundsGate {
  private readonly turns = new Map<string, Promise<unknown>>();
  /** The last alert logged per withdrawal: the same shortfall is logged once, not every poll. */
  private readonly alerted = new Map<string, string>();

  constructor(private readonly logger: Logger) {}

  /** Runs `step` after the network's earlier signings (in this process). */
  serialize<T>(network: string, step: () => Promise<T>): Promise<T> {
    const previous = this.turns.get(network) ?? Promise.resolve();
    const run = previous.then(step, step);
    const tail = run.catch(() => undefined);
    this.turns.set(network, tail);
    void tail.then(() => {
      if (this.turns.get(network) === tail) this.turns.delete(network);
    });
    return run;
  }

  /** Throws HotWalletShortError when the hot wallet cannot pay; a node that does not answer throws its own error (retried). */
  async assert(q: Query, adapter: ChainAdapter, uuid: string, to: string, amount: string): Promise<void> {
    const inFlight = await inFlightPayouts(q, adapter.network, uuid);
    let funds: PayoutFunds;
    try {
      funds = await adapter.payoutFunds({ to, amount, inFlight });
    } catch (error) {
      // Whatever the family threw (transport, timeout, 429/5xx, an answer it could not read): a
      // balance not read is asked again next poll, never a reason to fail the withdrawal.
      throw new PayoutFundsUnansweredError(adapter.network, error);
    }
    if (funds.shortfalls.length === 0) return;
    throw new HotWalletShortError(adapter.network, funds.wallet, funds.shortfalls, inFlight);
  }

  /** The operator alert: an error line when the shortfall is new or changed for this withdrawal, a debug line while it stays. */
  alert(uuid: string, error: DomainError): void {
    const line = { withdrawalUuid: uuid, alert: UNDERFUNDED_ALERT, code: error.code, ...error.details };
    if (this.alerted.get(uuid) === error.message) {
      this.logger.debug(line, 'payout still waiting for liquidity');
      return;
    }
    // Bounded: a withdrawal rejected or failed while waiting is never settled here.
    if (this.alerted.size >= ALERTED_MAX) this.alerted.clear();
    this.alerted.set(uuid, error.message);
    this.logger.error(line, `payout waiting for liquidity: ${error.message}`);
  }

  /** The withdrawal was signed (or left processing): forget its alert. */
  settled(uuid: string): void {
    this.alerted.delete(uuid);
  }
}
