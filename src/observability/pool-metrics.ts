import type { MikroORM } from '@mikro-orm/postgresql';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { NetworkCode } from '../domain/networks';
import type { PoolWaitObserver } from '../actors/invoices/pool-wait';
import { poolStateCounts } from '../store/repos/address-pool';

const STATES = ['free', 'reserved', 'allocated', 'cooling', 'blocked', 'retired'] as const;

/**
 * The deposit-address pools (issue 37): their size per state (read from the database at scrape
 * time), addresses added by refills, and the requests that found a pool empty: how long they
 * waited and whether they got an address or a 503 `pool_exhausted`. Alerts: docs/operations.md.
 * Made before the registry exists (the invoices need the observer first), registered on it later.
 */
export class PoolMetrics implements PoolWaitObserver {
  private readonly addresses: Gauge<'network' | 'state'>;
  private readonly added: Counter<'network'>;
  private readonly waits: Histogram<'network' | 'outcome'>;
  private readonly exhausted: Counter<'network'>;

  /** `now`: the daemon's clock (devnet time may run ahead): whether a legacy row still holds an address depends on it. */
  constructor(orm: MikroORM, now: () => Date = () => new Date()) {
    this.addresses = new Gauge({
      name: 'chainpay_address_pool_addresses',
      help: 'Deposit addresses of each pool by state (free: ready to hand out; reserved: held by the engine for new invoices; cooling: left by a network change or a closed invoice; blocked: free here but still held on another network of the family by a row from before the shared index space; retired: such a row, let go, never handed out again).',
      labelNames: ['network', 'state'],
      registers: [],
      async collect() {
        let rows: { network: string; state: string; n: number }[];
        try {
          rows = await poolStateCounts(orm.em.fork(), now());
        } catch {
          // The database is unreachable: the scrape must still answer (chainpay_database_up says
          // why); the pools' last counts stay as they were rather than failing every series.
          return;
        }
        this.reset();
        const networks = new Set(rows.map((r) => r.network));
        for (const network of networks) for (const state of STATES) this.set({ network, state }, 0);
        for (const r of rows) this.set({ network: r.network, state: r.state }, r.n);
      },
    });
    this.added = new Counter({ name: 'chainpay_address_pool_refilled_addresses_total', help: 'Deposit addresses derived into the pools by refills.', labelNames: ['network'], registers: [] });
    this.waits = new Histogram({
      name: 'chainpay_address_pool_wait_seconds',
      help: 'How long requests that found a pool empty waited for an address (outcome got: it came; exhausted: answered 503 pool_exhausted).',
      labelNames: ['network', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5],
      registers: [],
    });
    this.exhausted = new Counter({
      name: 'chainpay_address_pool_exhausted_total',
      help: 'Requests answered 503 pool_exhausted: no address came free within the wait.',
      labelNames: ['network'],
      registers: [],
    });
  }

  register(registry: Registry): void {
    for (const m of [this.addresses, this.added, this.waits, this.exhausted]) registry.registerMetric(m);
  }

  refilled(network: NetworkCode, count: number): void {
    if (count > 0) this.added.inc({ network }, count);
  }

  waited(network: NetworkCode, ms: number, got: boolean): void {
    this.waits.observe({ network, outcome: got ? 'got' : 'exhausted' }, ms / 1000);
    if (!got) this.exhausted.inc({ network });
  }
}
