import { fromPromise } from 'xstate';
import type { ChainSweeper, SweepTx, SweepTxStatus } from '../chains/sweeps';
import type { RawSql } from '../store/raw-sql';
import { postJournalsSql, type JournalInput } from '../store/repos/ledger';
import { highestOpenSequence } from '../store/repos/payout-rows';
import { pendingJournal, postedJournal, topUpJournal, transferFeeJournal, voidedJournal } from './sweep-journals';
import type { SweepContext, SweepTxInput } from './sweep-machine';
import { readSweep, recordFee, storeTx } from './sweep-rows';

export interface SweepStepDeps {
  readonly sql: RawSql;
  readonly sweeper: ChainSweeper;
  readonly now: () => Date;
  /** Fault injection for the crash tests (CHAINPAY_TEST_KILL_AT=sweep:<step>): the process dies there. */
  readonly killAt?: (step: string) => Promise<void>;
}

/**
 * The sweep actor's side effects (sweep-machine.ts), each idempotent: a signature is stored before
 * it is sent and re-read on a re-run; every journal is keyed by the sweep and its event, and is booked
 * before the machine moves past the step that caused it.
 */
export class SweepSteps {
  constructor(private readonly deps: SweepStepDeps) {}

  actors() {
    return {
      signTopUp: fromPromise<SweepTx, SweepContext>(({ input }) => this.signTopUp(input)),
      sendTopUp: fromPromise<void, SweepTxInput>(({ input }) => this.send(input.tx, 'topup-sent')),
      checkTopUp: fromPromise<SweepTxStatus, SweepTxInput>(({ input }) => this.checkTopUp(input)),
      signTransfer: fromPromise<SweepTx, SweepContext>(({ input }) => this.signTransfer(input)),
      sendTransfer: fromPromise<void, SweepTxInput>(({ input }) => this.sendTransfer(input)),
      checkTransfer: fromPromise<SweepTxStatus, SweepTxInput>(({ input }) => this.checkTransfer(input)),
    };
  }

  private async signTopUp(ctx: SweepContext): Promise<SweepTx> {
    const { sql, sweeper } = this.deps;
    const row = await readSweep(sql.query, ctx.id);
    if (row?.topUp) return row.topUp;
    // The hot wallet's nonce: the same durable book as payouts (this sweep's own row left out).
    const book = { highestOpenSequence: (wallet: string) => highestOpenSequence(sql.query, wallet, ctx.id) };
    const tx = await sweeper.signTopUp({ sweepId: ctx.id, to: row!.address, amount: ctx.gasTopUp, book });
    const stored = await storeTx(sql.query, ctx.id, 'topup', tx, this.deps.now());
    await this.deps.killAt?.('topup-signed');
    return stored;
  }

  private async send(tx: SweepTx, step: string): Promise<void> {
    await this.deps.sweeper.broadcast(tx);
    await this.deps.killAt?.(step);
  }

  private async checkTopUp({ context, tx }: SweepTxInput): Promise<SweepTxStatus> {
    const status = await this.deps.sweeper.status(tx);
    if (status.state === 'mined') await this.book(context.id, [topUpJournal(context, context.gasTopUp, status.fee)], status.fee);
    // Reverted: the coin stayed in the hot wallet; only the fee left it.
    if (status.state === 'reverted') await this.book(context.id, [topUpJournal(context, '0', status.fee)], status.fee);
    return status;
  }

  private async signTransfer(ctx: SweepContext): Promise<SweepTx> {
    const { sql, sweeper } = this.deps;
    const row = await readSweep(sql.query, ctx.id);
    if (row?.transfer) return row.transfer;
    const tx = await sweeper.signTransfer({ sweepId: ctx.id, index: row!.derivationIndex, from: row!.address, to: row!.destination, amount: ctx.amount });
    const stored = await storeTx(sql.query, ctx.id, 'transfer', tx, this.deps.now());
    await this.deps.killAt?.('transfer-signed');
    return stored;
  }

  /**
   * Pending at broadcast: deposits → in transit, the exact amount signed; then the send. The stored
   * top-up goes first again (harmless when mined: already known is success): a reorg that dropped
   * it would otherwise leave the transfer unable to pay its gas.
   */
  private async sendTransfer({ context, tx }: SweepTxInput): Promise<void> {
    await this.book(context.id, [pendingJournal(context, context.amount)], null);
    if (context.topUp) await this.deps.sweeper.broadcast(context.topUp);
    await this.send(tx, 'transfer-sent');
  }

  private async checkTransfer({ context, tx }: SweepTxInput): Promise<SweepTxStatus> {
    const status = await this.deps.sweeper.status(tx);
    if ((status.state === 'mined' || status.state === 'reverted') && status.final) {
      const usdt = status.state === 'mined' ? postedJournal(context, context.amount, context.target) : voidedJournal(context, context.amount);
      await this.book(context.id, [usdt, transferFeeJournal(context, status.fee)], status.fee);
    }
    return status;
  }

  /** Books the journals (each at most once) and adds `fee` to the row's total, in one transaction. */
  private async book(id: string, journals: JournalInput[], fee: string | null): Promise<void> {
    await this.deps.sql.transaction(async (q) => {
      const booked = await postJournalsSql(q, journals, this.deps.now());
      if (fee !== null && booked > 0) await recordFee(q, id, fee);
    });
  }
}
