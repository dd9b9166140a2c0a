import type { Query } from '../store/raw-sql';
import { toDateOrNull } from '../store/raw-sql';

/** A pool address that received credited deposits and has no sweep open. */
export interface SweepCandidate {
  readonly derivationIndex: number;
  readonly address: string;
  /** A credited deposit to it is still confirming. */
  readonly confirming: boolean;
  /** The oldest final deposit seen since its last completed sweep (null: none). */
  readonly oldestAt: Date | null;
}

/**
 * The addresses worth asking the chain about: pool addresses of `network` that were credited a
 * deposit (invoice_payments, not reverted), without an open sweep. Their balance comes from the
 * chain, not from here: the sweep moves exactly what the chain holds.
 */
export async function sweepCandidates(q: Query, network: string, address?: string): Promise<SweepCandidate[]> {
  const rows = await q<{ derivation_index: number; address: string; confirming: boolean; oldest: unknown }>(
    `select d.derivation_index, d.address,
            bool_or(p.state = 'confirming') as confirming,
            min(p.seen_at) filter (where p.state = 'confirmed' and p.seen_at > coalesce(
              (select max(s.updated_at) from sweeps s where s.network = d.network and s.address = d.address and s.outcome = 'completed'), '-infinity')) as oldest
       from deposit_addresses d
       join invoice_payments p on p.network = d.network and (p.to_address = d.address or lower(p.to_address) = d.normalized)
      where d.network = $1 and p.state <> 'reverted' and ($2::text is null or d.normalized = lower($2) or d.address = $2)
        and not exists (select 1 from sweeps s where s.network = d.network and s.address = d.address and s.open)
      group by d.network, d.derivation_index, d.address
      order by d.derivation_index`,
    [network, address ?? null],
  );
  return rows.map((r) => ({ derivationIndex: Number(r.derivation_index), address: r.address, confirming: Boolean(r.confirming), oldestAt: toDateOrNull(r.oldest) }));
}
