import Decimal from 'decimal.js';
import { Client } from 'pg';
import { createAddressCodec } from '../../../src/chains/codecs';
import { devnetTokenId } from '../../../src/chains/devnet/ids';
import { builtInFamilies } from '../../../src/chains/families';
import { NETWORK_CODES, type NetworkCode } from '../../../src/domain/networks';

/**
 * The promises chainpay makes (docs/operations.md, "What chainpay promises"), checked against the
 * database and, on devnet, against the chain itself (the devnet chain lives in the same database:
 * devnet_blocks / devnet_transfers are what "happened on chain"). Each check returns the rows that
 * break it, so a failing run names the transfer, journal, merchant or withdrawal at fault.
 *
 * Checked at quiescence: every payment final, no withdrawal processing, the outbox drained.
 */
export interface Violation {
  readonly promise: string;
  readonly detail: unknown;
}

/** Everything a merchant was promised, on a database at rest. */
export async function checkInvariants(databaseUrl: string, chain?: 'devnet'): Promise<Violation[]> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const found: Violation[] = [];
    const add = (promise: string, rows: unknown[]): void => {
      for (const detail of rows) found.push({ promise, detail });
    };
    add('every journal balances', await rows(db, `select journal_id, sum(amount)::text as sum from ledger_entries group by journal_id having sum(amount) <> 0`));
    add(
      'balance = ledger',
      await rows(
        db,
        `select b.merchant_id, b.available::text, b.held::text, coalesce(a.s, 0)::text as ledger_available, coalesce(h.s, 0)::text as ledger_held
           from merchant_balances b
           left join (select merchant_id, sum(amount) s from ledger_entries where account like 'merchant:%:available' group by merchant_id) a using (merchant_id)
           left join (select merchant_id, sum(amount) s from ledger_entries where account like 'merchant:%:held' group by merchant_id) h using (merchant_id)
          where b.available <> coalesce(a.s, 0) or b.held <> coalesce(h.s, 0)`,
      ),
    );
    add('no negative balance', await rows(db, `select merchant_id, available::text, held::text from merchant_balances where available < 0 or held < 0`));
    add(
      'an invoice books exactly its confirmed payments',
      await rows(
        db,
        `select i.uuid, i.status, i.booked_received::text, coalesce(p.s, 0)::text as confirmed
           from invoices i left join (select invoice_uuid, sum(amount) s from invoice_payments where state = 'confirmed' group by invoice_uuid) p on p.invoice_uuid = i.uuid
          where i.booked_received > 0 and i.booked_received <> coalesce(p.s, 0)`,
      ),
    );
    add(
      'booked money left the chain deposits account once',
      await rows(
        db,
        `select network, ledger, booked from (
           select i.network, coalesce((select -sum(e.amount) from ledger_entries e join journals j on j.id = e.journal_id
                              where e.account = 'chain:' || i.network || ':deposits' and j.kind not like 'sweep_%' and j.kind <> 'ledger_split'), 0)::text as ledger, sum(i.booked_received)::text as booked
             from invoices i where i.network is not null group by i.network) x
          where ledger::numeric <> booked::numeric`,
      ),
    );
    add('no two open invoices on one address (across the networks of a family)', await sharedOpenAddresses(db));
    add(
      'a payment is credited only on its invoice network',
      await rows(db, `select p.invoice_uuid, p.network, i.network as invoice_network, p.tx_hash from invoice_payments p join invoices i on i.uuid = p.invoice_uuid where p.network <> i.network`),
    );
    // The treasury (src/treasury): nothing left in transit once no sweep is open, whatever crashed.
    add(
      'no sweep money left in transit',
      await rows(
        db,
        `select account, sum(amount)::text as s from ledger_entries where account like 'chain:%:in_transit' group by account
          having sum(amount) <> 0 and not exists (select 1 from sweeps where open)`,
      ),
    );
    add('no withdrawal left in flight', await rows(db, `select uuid, status from withdrawals where status = 'processing'`));
    add(
      'a held amount for every withdrawal in review',
      await rows(
        db,
        `select merchant_id, held::text, coalesce(r.s, 0)::text as in_review from merchant_balances b
           left join (select merchant_id, sum(amount) s from withdrawals where status = 'review' group by merchant_id) r using (merchant_id)
          where b.held <> coalesce(r.s, 0)`,
      ),
    );
    add('an outbox event for every invoice status', await missingEvents(db, 'invoice', 'invoices', `status not in ('pending')`));
    add('an outbox event for every withdrawal status', await missingEvents(db, 'withdrawal', 'withdrawals', `status in ('completed', 'failed', 'rejected')`));
    add('every event delivered or set aside', await rows(db, `select id, type, status, attempts from outbox_events where status = 'pending'`));
    if (chain === 'devnet') for (const v of await checkDevnetChain(db)) found.push(v);
    return found;
  } finally {
    await db.end();
  }
}

async function rows(db: Client, sql: string, params: unknown[] = []): Promise<unknown[]> {
  return (await db.query(sql, params)).rows;
}

/**
 * Open invoices (also in their late-payment window) holding one deposit address, where the networks
 * derive one address (the registry's index space: BEP20, POLYGON and ARBITRUM are one): a payment
 * on either network would reach the same key, so only one invoice may hold it at a time.
 */
async function sharedOpenAddresses(db: Client): Promise<unknown[]> {
  const open = (await db.query<{ uuid: string; network: NetworkCode; address: string }>(`select uuid, network, address from invoices where open and memo is null and address is not null`)).rows;
  const holders = new Map<string, string[]>();
  for (const inv of open) {
    const key = `${builtInFamilies().indexSpace(inv.network)}/${inv.address.toLowerCase()}`;
    holders.set(key, [...(holders.get(key) ?? []), `${inv.network}:${inv.uuid}`]);
  }
  return [...holders].filter(([, held]) => held.length > 1).map(([address, held]) => ({ address, held }));
}

/** Entities whose current status has no outbox event of that type (an event per status change). */
async function missingEvents(db: Client, aggregate: string, table: string, where: string): Promise<unknown[]> {
  return rows(
    db,
    `select t.uuid, t.status from ${table} t
      where ${where} and not exists (select 1 from outbox_events e where e.aggregate_id = t.uuid and e.type = '${aggregate}.' || t.status)`,
  );
}

/**
 * Against the devnet chains: every canonical USDT transfer to a watched address is recorded exactly
 * once (as an invoice payment or an unattributed deposit) with its amount, nothing is recorded that
 * the chain does not hold (except as reverted), another token never counts, and every payee got
 * on chain exactly what its completed withdrawals paid out, no more.
 */
async function checkDevnetChain(db: Client): Promise<Violation[]> {
  const found: Violation[] = [];
  const usdt = new Map<string, string>(NETWORK_CODES.map((n: NetworkCode) => [n, devnetTokenId(n, createAddressCodec(n, {}))]));
  const transfers = (
    await db.query<{ network: string; tx_hash: string; event_index: number; to_key: string; amount: string; contract: string }>(
      `select t.network, t.tx_hash, t.event_index, t.to_key, t.amount::text, t.contract
         from devnet_transfers t join devnet_blocks b on b.network = t.network and b.hash = t.block_hash and b.canonical`,
    )
  ).rows;
  const recorded = (
    await db.query<{ network: string; tx_hash: string; event_index: number; amount: string; state: string; kind: string }>(
      `select network, tx_hash, event_index, amount::text, state, 'payment' as kind from invoice_payments
       union all select network, tx_hash, event_index, amount::text, state, 'unattributed' from unattributed_deposits`,
    )
  ).rows;
  const key = (r: { network: string; tx_hash: string; event_index: number }): string => `${r.network}/${r.tx_hash}/${r.event_index}`;
  const byKey = new Map<string, typeof recorded>();
  for (const r of recorded) byKey.set(key(r), [...(byKey.get(key(r)) ?? []), r]);
  // Every network of an index space watches all of its addresses (a payment on the wrong EVM network is recorded too).
  const deposit = new Set<string>();
  for (const r of (await db.query<{ network: NetworkCode; normalized: string }>(`select distinct network, normalized from deposit_addresses`)).rows) {
    for (const network of builtInFamilies().sharingAddressesWith(r.network)) deposit.add(`${network}/${r.normalized}`);
  }
  // The shared address of a master_memo network is known from what was recorded on it.
  for (const t of transfers) if (byKey.has(key(t))) deposit.add(`${t.network}/${t.to_key}`);
  const canonical = new Map(transfers.map((t) => [key(t), t]));
  for (const t of transfers) {
    const seen = byKey.get(key(t)) ?? [];
    const live = seen.filter((r) => r.state !== 'reverted');
    if (t.contract.toLowerCase() !== usdt.get(t.network)!.toLowerCase()) {
      if (seen.length > 0) found.push({ promise: 'another token never counts', detail: { transfer: t, seen } });
      continue;
    }
    if (!deposit.has(`${t.network}/${t.to_key}`)) continue;
    if (live.length !== 1) found.push({ promise: 'every transfer recorded exactly once', detail: { transfer: t, seen } });
    else if (!new Decimal(live[0]!.amount).eq(t.amount)) found.push({ promise: 'recorded with its amount', detail: { transfer: t, seen } });
  }
  for (const r of recorded) if (r.state !== 'reverted' && !canonical.has(key(r))) found.push({ promise: 'nothing recorded that the chain does not hold', detail: r });

  const payouts = await rows(
    db,
    `with onchain as (
       select t.network, lower(t.to_address) as addr, count(*)::int as n, sum(t.amount) as total
         from devnet_transfers t join devnet_blocks b on b.network = t.network and b.hash = t.block_hash and b.canonical
        where exists (select 1 from withdrawal_whitelist w where w.network = t.network and lower(w.address) = lower(t.to_address))
        group by 1, 2),
     owed as (select network, lower(address) as addr, count(*)::int as n, sum(net_payout) as total from withdrawals where status = 'completed' group by 1, 2)
     select network, addr, onchain.n as on_chain, onchain.total::text as on_chain_total, owed.n as completed, owed.total::text as completed_total
       from onchain full join owed using (network, addr)
      where onchain.n is distinct from owed.n or onchain.total is distinct from owed.total`,
  );
  for (const detail of payouts) found.push({ promise: 'every completed withdrawal paid on chain exactly once, nothing else paid', detail });
  return found;
}
