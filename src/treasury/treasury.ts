import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { createActor, type Actor, type Snapshot } from 'xstate';
import type { ChainSweeper } from '../chains/sweeps';
import type { ChainAdapter } from '../chains/types';
import { formatAmount, toDecimal } from '../domain/decimal';
import type { NetworkCode } from '../domain/networks';
import { RawSql } from '../store/raw-sql';
import { postJournalsSql } from '../store/repos/ledger';
import { gasHotAccount, hotAccount } from '../store/repos/ledger-accounts';
import { sweepCandidates } from './candidates';
import type { TreasuryConfig } from './config';
import { decideSweep, splitSweep, type SweepDecision } from './policy';
import { openingJournals } from './sweep-journals';
import { sweepMachine, type SweepContext, type SweepOutcome } from './sweep-machine';
import { closeSweep, insertSweep, openSweeps, saveSnapshot, type SweepRow } from './sweep-rows';
import { SweepSteps } from './sweep-steps';

export interface TreasuryDeps {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: { now(): Date };
  readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  readonly config: TreasuryConfig;
  readonly pollIntervalMs: number;
  readonly killAt?: (step: string) => Promise<void>;
  /** Called when a sweep ends (metrics). */
  readonly onOutcome?: (network: string, outcome: SweepOutcome, fee: string | null) => void;
}

/** One address's sweep as planned (a dry run returns these; a real run starts them). */
export interface PlannedSweep {
  readonly network: string;
  readonly address: string;
  readonly balance: string;
  readonly decision: SweepDecision['reason'];
  readonly target: 'hot' | 'cold' | null;
  readonly amount: string;
  readonly fee: string;
  readonly gasTopUp: string;
  /** The sweep started (null: dry run, or nothing to move). */
  readonly sweepId: string | null;
}

/**
 * The treasury (docs/treasury.md): per network with a sweeper (ChainAdapter.sweeps), a policy pass
 * every TREASURY_INTERVAL_SECONDS starts a sweep actor per address the policy picks, and on start
 * every open sweep's actor resumes from its persisted snapshot. One actor per open sweep row, and
 * one open row per address (sweeps_open_address): an address is never swept twice at once.
 */
export class Treasury {
  private readonly sql: RawSql;
  private readonly running = new Map<string, Actor<typeof sweepMachine>>();
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Networks whose opening balance is booked (or was before this process). */
  private readonly opened = new Set<NetworkCode>();

  constructor(private readonly deps: TreasuryDeps) {
    this.sql = new RawSql(deps.orm);
  }

  get config(): TreasuryConfig {
    return this.deps.config;
  }

  /** The networks whose deposits this daemon can sweep. */
  sweepers(): Map<NetworkCode, ChainSweeper> {
    const out = new Map<NetworkCode, ChainSweeper>();
    for (const [code, adapter] of this.deps.adapters) if (adapter.sweeps) out.set(code, adapter.sweeps);
    return out;
  }

  async start(): Promise<void> {
    for (const [code, sweeper] of this.sweepers()) for (const row of await openSweeps(this.sql.query, code)) this.run(row, sweeper);
    const tick = (): void => {
      this.pass = this.pass.then(() => this.policyPass()).catch((err: unknown) => this.deps.logger.error({ err }, 'treasury pass failed'));
      if (!this.stopped) this.timer = setTimeout(tick, this.deps.config.intervalMs);
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.pass;
    for (const actor of this.running.values()) actor.stop();
    this.running.clear();
  }

  /** One automatic pass: every enabled network, the policy decides. */
  async policyPass(): Promise<void> {
    for (const code of this.sweepers().keys()) {
      if (this.stopped || !this.deps.config.networks[code].enabled) continue;
      await this.sweep(code, { manual: false, dryRun: false }).catch((err: unknown) => this.deps.logger.error({ err, network: code }, 'treasury: sweep pass failed'));
    }
  }

  /**
   * Plans (and unless `dryRun` starts) the sweeps of `network`: manual takes every address holding
   * final funds, automatic only those the policy picks. Throws when the network has no sweeper.
   */
  async sweep(network: NetworkCode, options: { manual: boolean; dryRun: boolean; address?: string }): Promise<PlannedSweep[]> {
    const sweeper = this.sweepers().get(network);
    if (!sweeper) throw new NoSweeperError(network);
    const cfg = this.deps.config.networks[network];
    await this.ensureOpening(network);
    const now = this.deps.clock.now();
    let hotHolding = cfg.hotMax === null ? '0' : await this.hotHolding(network, sweeper);
    const planned: PlannedSweep[] = [];
    for (const c of await sweepCandidates(this.sql.query, network, options.address)) {
      const balance = (await sweeper.balances(c.address)).token;
      const decision = decideSweep({ balance, confirming: c.confirming, oldestAt: c.oldestAt }, cfg, this.deps.config.maxAgeHours, now, options.manual);
      if (!decision.sweep) {
        if (options.manual) planned.push({ network, address: c.address, balance, decision: decision.reason, target: null, amount: '0', fee: '0', gasTopUp: '0', sweepId: null });
        continue;
      }
      const split = splitSweep(balance, hotHolding, cfg);
      const destination = split.target === 'hot' ? sweeper.hotAddress() : cfg.coldAddress!;
      const quote = await sweeper.quote({ index: c.derivationIndex, from: c.address, to: destination, amount: split.amount });
      let sweepId: string | null = null;
      if (!options.dryRun) {
        const row = await insertSweep(
          this.sql.query,
          { id: randomUUID(), network, address: c.address, derivationIndex: c.derivationIndex, target: split.target, destination, amount: split.amount, gasTopUp: quote.topUp, manual: options.manual },
          now,
        );
        if (row) {
          sweepId = row.id;
          this.deps.logger.info({ sweepId, network, address: c.address, amount: split.amount, target: split.target, gasTopUp: quote.topUp, reason: decision.reason }, 'sweep started');
          this.run(row, sweeper);
        }
      }
      if (split.target === 'hot') hotHolding = formatAmount(toDecimal(hotHolding).plus(split.amount));
      planned.push({ network, address: c.address, balance, decision: decision.reason, target: split.target, amount: split.amount, fee: quote.fee, gasTopUp: quote.topUp, sweepId });
    }
    return planned;
  }

  /** Resolves when no sweep actor runs (tests, and the CLI's wait). */
  async settled(timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (this.running.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    return this.running.size === 0;
  }

  /** The hot wallet on the chain plus sweeps in flight to it: what HOT_MAX compares against. */
  private async hotHolding(network: string, sweeper: ChainSweeper): Promise<string> {
    const [row] = await this.sql.query<{ s: string | null }>(`select sum(amount)::text as s from sweeps where network = $1 and open and target = 'hot'`, [network]);
    return formatAmount(toDecimal((await sweeper.balances(sweeper.hotAddress())).token).plus(row?.s ?? '0'));
  }

  /**
   * Once per network, before its first sweep (and before a status): what the hot wallet holds that the ledger does not know (the operator's own
   * funding, less what was paid out before) is booked against the funding accounts, so the hot
   * accounts equal the chain from the first sweep on.
   */
  async ensureOpening(network: NetworkCode): Promise<void> {
    const sweeper = this.sweepers().get(network);
    if (!sweeper || this.opened.has(network)) return;
    await this.bookOpening(network, sweeper);
    this.opened.add(network);
  }

  private async bookOpening(network: NetworkCode, sweeper: ChainSweeper): Promise<void> {
    const [done] = await this.sql.query<{ n: string }>(`select count(*)::text as n from journals where reference = $1`, [`treasury:${network}:opening`]);
    if (done && done.n !== '0') return;
    // Only before the first sweep: later, a sweep landed but not posted yet would count as funding.
    const [swept] = await this.sql.query<{ n: string }>('select count(*)::text as n from sweeps where network = $1', [network]);
    if (swept && swept.n !== '0') return;
    const chain = await sweeper.balances(sweeper.hotAddress());
    const sums = await this.sql.query<{ account: string; s: string }>(`select account, sum(amount)::text as s from ledger_entries where account = any($1) group by account`, [
      [hotAccount(network), gasHotAccount(network)],
    ]);
    const booked = (account: string): string => sums.find((r) => r.account === account)?.s ?? '0';
    // Asset accounts are negative when holding: the ledger thinks the wallet holds -sum.
    const token = formatAmount(toDecimal(chain.token).plus(booked(hotAccount(network))));
    const gas = formatAmount(toDecimal(chain.gas).plus(booked(gasHotAccount(network))));
    await this.sql.transaction(async (q) => {
      await postJournalsSql(q, openingJournals(network, token, gas), this.deps.clock.now());
      // The marker even when there was nothing to book (a journal without lines is not inserted): once only.
      await q(`insert into journals (id, reference, kind, created_at) values ($1, $2, 'treasury_opening', $3) on conflict (reference) do nothing`, [
        randomUUID(),
        `treasury:${network}:opening`,
        this.deps.clock.now().toISOString(),
      ]);
    });
    this.deps.logger.info({ network, token, gas }, 'treasury: hot wallet opening balance booked');
  }

  private run(row: SweepRow, sweeper: ChainSweeper): void {
    if (this.running.has(row.id) || this.stopped) return;
    const steps = new SweepSteps({ sql: this.sql, sweeper, now: () => this.deps.clock.now(), killAt: this.deps.killAt });
    const machine = sweepMachine.provide({ actors: steps.actors() });
    const input: SweepContext = {
      id: row.id,
      network: row.network,
      target: row.target,
      amount: row.amount,
      gasTopUp: row.gasTopUp,
      pollIntervalMs: this.deps.pollIntervalMs,
      topUp: row.topUp,
      transfer: row.transfer,
      error: null,
    };
    const snapshot = row.snapshot ? (row.snapshot as Snapshot<unknown>) : undefined;
    const actor = createActor(machine, snapshot ? { snapshot, input } : { input });
    this.running.set(row.id, actor);
    let persist: Promise<void> = Promise.resolve();
    const log = this.deps.logger.child({ sweepId: row.id, network: row.network, address: row.address });
    actor.subscribe({
      next: (snap) => {
        const state = typeof snap.value === 'string' ? snap.value : Object.entries(snap.value).map(([k, v]) => `${k}.${String(v)}`)[0]!;
        const persisted = actor.getPersistedSnapshot();
        persist = persist
          .then(async () => {
            if (snap.status === 'done') {
              await saveSnapshot(this.sql.query, row.id, state, persisted, snap.context.error, this.deps.clock.now());
              await closeSweep(this.sql.query, row.id, state as SweepOutcome, this.deps.clock.now());
              this.running.delete(row.id);
              const [r] = await this.sql.query<{ fee: string | null }>('select fee::text as fee from sweeps where id = $1', [row.id]);
              this.deps.onOutcome?.(row.network, state as SweepOutcome, r?.fee ?? null);
              log.info({ outcome: state, txHash: snap.context.transfer?.txHash }, 'sweep ended');
            } else {
              await saveSnapshot(this.sql.query, row.id, state, persisted, snap.context.error, this.deps.clock.now());
            }
          })
          .catch((err: unknown) => log.error({ err }, 'sweep snapshot not saved'));
      },
      error: (err: unknown) => log.error({ err }, 'sweep actor failed'),
    });
    actor.start();
    if (snapshot) actor.send({ type: 'RESUME' });
  }
}

export class NoSweeperError extends Error {
  override readonly name = 'NoSweeperError';
  readonly code = 'sweeps_unsupported';
  constructor(readonly network: string) {
    super(`${network}: this daemon cannot sweep this network (no signing sweeper: watch-only, TON, or a family without sweeps yet)`);
  }
}
