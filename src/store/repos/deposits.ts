import type { EntityManager, QueryResult } from '@mikro-orm/postgresql';
import { memoMatchKey } from '../../domain/memo-match';
import type { NetworkCode } from '../../domain/networks';
import { UnattributedDeposit } from '../entities';
import { addressOwner } from './address-pool';

/** A transfer as the watcher saw it on the chain (what deposits.ts records). */
export interface SeenTransfer {
  readonly network: string;
  readonly txHash: string;
  readonly eventIndex: number;
  readonly blockHeight: number;
  readonly blockHash: string;
  readonly from: string;
  readonly to: string;
  readonly memo: string | null;
  readonly amount: string;
}

/** A payment row of this transfer, if an invoice took it before: its state and invoice. */
export async function knownPayment(em: EntityManager, network: string, txHash: string, eventIndex: number): Promise<{ state: string; invoiceUuid: string } | null> {
  const rows = await em.execute<{ state: string; invoice_uuid: string }[]>('select state, invoice_uuid from invoice_payments where network = ? and tx_hash = ? and event_index = ?', [
    network,
    txHash,
    eventIndex,
  ]);
  return rows[0] ? { state: rows[0].state, invoiceUuid: rows[0].invoice_uuid } : null;
}

/**
 * The invoice a memo names on the shared address (master_memo networks), null when none does.
 * Matched case-insensitively as the buyer may type it (domain/memo-match.ts), on the index
 * invoices_network_memo_upper_index. Memos issued today are upper case and unique, so at most one
 * row matches; should rows written before differ only by case, the one spelled exactly as typed
 * wins, and without one the memo is ambiguous: null (unknown_memo, attributed by an operator),
 * never a guess.
 */
export async function invoiceByMemo(em: EntityManager, network: NetworkCode, memo: string): Promise<string | null> {
  const key = memoMatchKey(memo);
  if (key === '') return null;
  const rows = await em.execute<{ uuid: string; memo: string }[]>('select uuid, memo from invoices where network = ? and upper(memo) = ? limit 10', [network, key]);
  if (rows.length <= 1) return rows[0]?.uuid ?? null;
  return rows.find((r) => r.memo === memo.trim())?.uuid ?? null;
}

/** The invoice a pool address is allocated to, null when it is free (or not ours). */
export async function invoiceByAddress(em: EntityManager, network: string, normalized: string): Promise<string | null> {
  const owner = await addressOwner(em, network, normalized);
  return owner?.state === 'allocated' ? owner.invoiceUuid : null;
}

/** The invoice a wrong-network payment was probably meant for (same address, another network of the family). */
export interface IntendedInvoice {
  readonly invoiceUuid: string;
  readonly network: string;
}

/**
 * Records a transfer no open invoice took. Idempotent on (network, tx hash, event index): a replay
 * keeps the first row (and its id, the CLI's deposit_id); a transfer seen again after a reorg reopens it.
 */
export async function recordUnattributed(em: EntityManager, t: SeenTransfer, confirmations: number, reason: string, now: Date, intended: IntendedInvoice | null = null): Promise<string | undefined> {
  const rows = await em.execute<{ id: string }[]>(
    `insert into unattributed_deposits (id, network, address, memo, tx_hash, event_index, amount, from_address, block_height, block_hash, confirmations, reason, state, seen_at,
       intended_invoice_uuid, intended_network)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?)
     on conflict (network, tx_hash, event_index) do update set state = case when unattributed_deposits.state = 'reverted' then 'open' else unattributed_deposits.state end,
       block_height = excluded.block_height, block_hash = excluded.block_hash
     returning id`,
    [
      new UnattributedDeposit(t.network, t.to, t.memo, t.txHash, t.eventIndex, t.amount, t.from, t.blockHeight, t.blockHash, reason, now).id,
      t.network,
      t.to,
      t.memo,
      t.txHash,
      t.eventIndex,
      t.amount,
      t.from,
      t.blockHeight,
      t.blockHash,
      confirmations,
      reason,
      now,
      intended?.invoiceUuid ?? null,
      intended?.network ?? null,
    ],
  );
  return rows[0]?.id;
}

/** Open unattributed deposits in blocks above `height` were replaced by a reorg. */
export async function revertUnattributedAbove(em: EntityManager, network: string, height: number): Promise<void> {
  await em.execute(`update unattributed_deposits set state = 'reverted' where network = ? and state = 'open' and block_height > ?`, [network, height]);
}

/** The lowest confirmed payment of this network in a block above `height`, if any. */
export async function creditedAbove(em: EntityManager, network: string, height: number): Promise<{ txHash: string; blockHeight: number; blockHash: string } | null> {
  const rows = await em.execute<{ tx_hash: string; block_height: string; block_hash: string }[]>(
    `select tx_hash, block_height, block_hash from invoice_payments where network = ? and state = 'confirmed' and block_height > ? order by block_height limit 1`,
    [network, height],
  );
  const r = rows[0];
  return r ? { txHash: r.tx_hash, blockHeight: Number(r.block_height), blockHash: r.block_hash } : null;
}

/** A payment of an open invoice still counting confirmations (the watcher follows it after a restart). */
export interface ConfirmingPayment {
  readonly key: string;
  readonly invoiceUuid: string;
  readonly blockHeight: number;
  readonly blockHash: string;
  readonly confirmations: number;
  readonly requiredConfirmations: number;
}

export async function confirmingPayments(em: EntityManager, network: string): Promise<ConfirmingPayment[]> {
  const rows = await em.execute<{ tx_hash: string; event_index: number; invoice_uuid: string; block_height: string; block_hash: string; confirmations: number; required_confirmations: number }[]>(
    `select p.tx_hash, p.event_index, p.invoice_uuid, p.block_height, p.block_hash, p.confirmations, i.required_confirmations from invoice_payments p join invoices i on i.uuid = p.invoice_uuid
     where p.network = ? and p.state = 'confirming' and i.open`,
    [network],
  );
  return rows.map((r) => ({
    key: `${r.tx_hash}:${r.event_index}`,
    invoiceUuid: r.invoice_uuid,
    blockHeight: Number(r.block_height),
    blockHash: r.block_hash,
    confirmations: r.confirmations,
    requiredConfirmations: r.required_confirmations,
  }));
}

/** An operator attributes an open unattributed deposit; false when it is no longer open (lost a race). */
export async function markAttributed(em: EntityManager, id: string, invoiceUuid: string, actor: string, at: Date): Promise<boolean> {
  const marked = await em.execute<QueryResult>(
    `update unattributed_deposits set state = 'attributed', invoice_uuid = ?, resolved_by = ?, resolved_at = ? where id = ? and state = 'open'`,
    [invoiceUuid, actor, at, id],
    'run',
  );
  return marked.affectedRows === 1;
}
