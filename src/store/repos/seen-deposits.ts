import type { EntityManager } from '@mikro-orm/postgresql';
import type { SeenTransfer } from './deposits';

/** A transfer naming an open invoice, as the watcher recorded it (seen_deposits). */
export interface SeenDepositRow extends SeenTransfer {
  readonly invoiceUuid: string;
  readonly blockTime: Date;
  /** The family's count when it was seen (at least 1). */
  readonly confirmations: number;
}

/**
 * Records transfers naming an invoice, undecided, inside the caller's transaction (the one that
 * moves the cursor). A transfer recorded before (a replayed step, a reorg that brought it back)
 * becomes undecided again with its new block: its invoice is told again and dedupes it.
 */
export async function recordSeen(em: EntityManager, rows: readonly SeenDepositRow[], now: Date): Promise<void> {
  for (const r of rows) {
    await em.execute(
      `insert into seen_deposits (network, tx_hash, event_index, invoice_uuid, from_address, to_address, memo, amount, block_height, block_hash, block_time, confirmations, decided, seen_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, false, ?)
       on conflict (network, tx_hash, event_index) do update set invoice_uuid = excluded.invoice_uuid, block_height = excluded.block_height,
         block_hash = excluded.block_hash, block_time = excluded.block_time, confirmations = excluded.confirmations, decided = false`,
      [r.network, r.txHash, r.eventIndex, r.invoiceUuid, r.from, r.to, r.memo, r.amount, r.blockHeight, r.blockHash, r.blockTime, r.confirmations, now],
    );
  }
}

/** The invoice's commit took or refused it. */
export async function markDecided(em: EntityManager, network: string, txHash: string, eventIndex: number): Promise<void> {
  await em.execute(`update seen_deposits set decided = true where network = ? and tx_hash = ? and event_index = ?`, [network, txHash, eventIndex]);
}

/** Recorded, not yet decided (a crash came between the cursor and the invoice): delivered again at start. */
export async function undecidedDeposits(em: EntityManager, network: string): Promise<SeenDepositRow[]> {
  const rows = await em.execute<
    {
      network: string;
      tx_hash: string;
      event_index: number;
      invoice_uuid: string;
      from_address: string;
      to_address: string;
      memo: string | null;
      amount: string;
      block_height: string;
      block_hash: string;
      block_time: Date;
      confirmations: number;
    }[]
  >(
    `select network, tx_hash, event_index, invoice_uuid, from_address, to_address, memo, trim_scale(amount)::text as amount, block_height, block_hash, block_time, confirmations
       from seen_deposits where network = ? and not decided order by block_height, tx_hash, event_index`,
    [network],
  );
  return rows.map((r) => ({
    network: r.network,
    txHash: r.tx_hash,
    eventIndex: r.event_index,
    invoiceUuid: r.invoice_uuid,
    from: r.from_address,
    to: r.to_address,
    memo: r.memo,
    amount: r.amount,
    blockHeight: Number(r.block_height),
    blockHash: r.block_hash,
    blockTime: new Date(r.block_time),
    confirmations: r.confirmations,
  }));
}
