import Decimal from 'decimal.js';
import type { NetworkCode } from '../../../src/domain/networks';
import type { CreateInvoiceResponse, Invoice } from '../../../src/grpc/generated/chainpay/v1/invoices';
import { call, type DaemonProcess } from './daemon-process';

/**
 * What a busy merchant's day looks like on devnet, drawn from a seeded generator: invoices created on
 * every network, paid exactly, partly, twice or with another token, blocks mined, shallow reorgs,
 * withdrawals made. It runs until `until` resolves (the crash harness kills the daemon then), so
 * every call may fail mid-flight: failures are counted, never thrown. The chain and the database
 * are the truth the invariants are checked against, not what this generator believes it did.
 */
/** How the workload moves a chain: the devnet service, or a real node driven from the test side. */
export interface ChainDriver {
  readonly networks: readonly NetworkCode[];
  /** Networks whose chain can be reorganised by the driver (none on a real node here). */
  readonly reorgs: readonly NetworkCode[];
  /** The network withdrawals are made on. */
  readonly payoutNetwork: NetworkCode;
  /** Pays `invoice`'s address on its network, or on `network` (a buyer on the wrong chain of the family). */
  pay(invoice: Invoice, amount: string, token: 'usdt' | 'fake', network?: NetworkCode): Promise<unknown>;
  mine(network: NetworkCode, blocks: number): Promise<unknown>;
  reorg(network: NetworkCode): Promise<unknown>;
}

/** The devnet chains, moved through the daemon's DevnetService. */
export function devnetDriver(d: DaemonProcess): ChainDriver {
  return {
    networks: NETWORKS,
    reorgs: REORGS,
    payoutNetwork: 'TRC20',
    pay: (inv, amount, token, network) =>
      call((cb) => d.devnet.pay({ network: network ?? inv.network!, to: inv.address!, amount, memo: inv.memo ?? undefined, token: token === 'fake' ? 'fake' : undefined }, d.md(), cb)),
    mine: (network, blocks) => call((cb) => d.devnet.mine({ network, blocks }, d.md(), cb)),
    reorg: (network) => call((cb) => d.devnet.reorg({ network, depth: 1 }, d.md(), cb)),
  };
}

export interface WorkloadState {
  readonly merchantId: string;
  readonly payee: string;
  /** Invoices created (as the daemon answered), newest last. */
  readonly invoices: Invoice[];
  references: number;
  calls: number;
  failures: number;
}

const NETWORKS: readonly NetworkCode[] = ['TRC20', 'BEP20', 'TON', 'POLYGON', 'ARBITRUM', 'SOLANA'];
/** The networks that derive one address (one index space): a payment may land on the wrong one. */
const EVM: readonly NetworkCode[] = ['BEP20', 'POLYGON', 'ARBITRUM'];
/** Families with reorgs on devnet (TON and SOLANA have none). */
const REORGS: readonly NetworkCode[] = ['TRC20', 'BEP20', 'POLYGON', 'ARBITRUM'];

export async function runWorkload(d: DaemonProcess, chain: ChainDriver, state: WorkloadState, random: () => number, until: Promise<void>, workers = 4): Promise<void> {
  let stopped = false;
  void until.then(() => {
    stopped = true;
  });
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const amount = (): string => new Decimal(1 + Math.floor(random() * 4000)).div(100).toFixed(2);
  const md = d.md(state.merchantId);

  const step = async (): Promise<void> => {
    const r = random();
    const open = state.invoices.filter((i) => i.address);
    if (r < 0.35 || open.length === 0) {
      const res = await call<CreateInvoiceResponse>((cb) => d.invoices.createInvoice({ amount: amount(), network: pick(chain.networks) }, md, cb));
      state.invoices.push(res.invoice!);
    } else if (r < 0.65) {
      const inv = pick(open.slice(-20));
      const share = random();
      // Exactly, a part, or a bit more than asked; a second payment to the same invoice is as likely.
      const paid = share < 0.6 ? inv.pay_amount : share < 0.85 ? new Decimal(inv.pay_amount).div(2).toDecimalPlaces(2).toFixed() : new Decimal(inv.pay_amount).plus('0.5').toFixed();
      await chain.pay(inv, paid, 'usdt');
    } else if (r < 0.665) {
      const inv = pick(open);
      await chain.pay(inv, inv.pay_amount, 'fake');
    } else if (r < 0.68) {
      // The commonest buyer error: an EVM invoice paid on another EVM network (credits no invoice).
      const evm = open.filter((i) => EVM.includes(i.network as NetworkCode));
      const other = chain.networks.filter((n) => EVM.includes(n));
      if (evm.length === 0 || other.length < 2) return;
      const inv = pick(evm.slice(-20));
      await chain.pay(inv, inv.pay_amount, 'usdt', pick(other.filter((n) => n !== inv.network)));
    } else if (r < 0.85) {
      await chain.mine(pick(chain.networks), 1 + Math.floor(random() * 2));
    } else if (r < 0.88) {
      if (chain.reorgs.length > 0) await chain.reorg(pick(chain.reorgs));
    } else {
      const reference = `rel-${state.references++}`;
      await call((cb) => d.withdrawals.createWithdrawal({ network: chain.payoutNetwork, address: state.payee, amount: (2 + Math.floor(random() * 3)).toString(), reference }, md, cb));
    }
  };

  const worker = async (): Promise<void> => {
    while (!stopped) {
      state.calls++;
      try {
        await step();
      } catch {
        // The daemon was killed mid-call, or refused the call (a reorg too deep, a balance too low):
        // both are expected here; what was written is judged by the invariants.
        state.failures++;
        if (stopped) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
}

/**
 * After the last restart: mine on every network until nothing is in flight (no invoice confirming,
 * no withdrawal processing, no outbox event pending), so the invariants judge a database at rest.
 */
export async function settle(chain: ChainDriver, quiet: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const network of chain.networks) await chain.mine(network, 1);
    if (await quiet()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the daemon did not come to rest within ${timeoutMs} ms`);
}
