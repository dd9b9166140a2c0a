import Decimal from 'decimal.js';
import { Client } from 'pg';
import type { Address } from 'viem';
import { ERC20_ABI } from '../../../src/chains/evm/abi';
import { builtInFamilies } from '../../../src/chains/families';
import type { NetworkCode } from '../../../src/domain/networks';
import type { TestChain } from '../../evm/support/test-chain';
import type { Violation } from './invariants';

/**
 * The promises checked against a real EVM node: every Transfer of the configured token to one of
 * the daemon's deposit addresses is recorded exactly once with its amount, a transfer of another
 * token never is, and the payee received on chain exactly what its completed withdrawals paid out.
 */
export async function checkAgainstNode(databaseUrl: string, chain: TestChain, network: string, token: Address, fakeToken: Address, payee: string): Promise<Violation[]> {
  const found: Violation[] = [];
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    // The network's watcher watches every address of its index space (all EVM networks' pools).
    const space = builtInFamilies().indexSpace(network as NetworkCode);
    const deposit = new Set((await db.query<{ a: string }>(`select lower(address) as a from deposit_addresses where index_space = $1`, [space])).rows.map((r) => r.a));
    const recorded = (
      await db.query<{ tx_hash: string; amount: string; state: string }>(
        `select lower(tx_hash) as tx_hash, amount::text, state from invoice_payments where network = $1
         union all select lower(tx_hash), amount::text, state from unattributed_deposits where network = $1`,
        [network],
      )
    ).rows;
    const logs = async (address: Address) => chain.public.getContractEvents({ address, abi: ERC20_ABI, eventName: 'Transfer', fromBlock: 0n });
    for (const log of await logs(token)) {
      const to = log.args.to!.toLowerCase();
      if (!deposit.has(to)) continue;
      const live = recorded.filter((r) => r.tx_hash === log.transactionHash.toLowerCase() && r.state !== 'reverted');
      const amount = new Decimal(log.args.value!.toString()).div(1e6);
      if (live.length !== 1) found.push({ promise: 'every transfer recorded exactly once', detail: { tx: log.transactionHash, to, live } });
      else if (!amount.eq(live[0]!.amount)) found.push({ promise: 'recorded with its amount', detail: { tx: log.transactionHash, amount: amount.toFixed(), live } });
    }
    for (const log of await logs(fakeToken)) {
      if (recorded.some((r) => r.tx_hash === log.transactionHash.toLowerCase())) found.push({ promise: 'another token never counts', detail: log.transactionHash });
    }
    const paid = (await logs(token)).filter((l) => l.args.to!.toLowerCase() === payee.toLowerCase());
    const onChain = paid.reduce((sum, l) => sum.plus(new Decimal(l.args.value!.toString()).div(1e6)), new Decimal(0));
    const owed = (
      await db.query<{ n: number; total: string | null }>(`select count(*)::int as n, sum(net_payout)::text as total from withdrawals where status = 'completed' and network = $1`, [network])
    ).rows[0]!;
    if (owed.n !== paid.length || !onChain.eq(owed.total ?? '0')) {
      found.push({ promise: 'every completed withdrawal paid on chain exactly once, nothing else paid', detail: { onChain: { n: paid.length, total: onChain.toFixed() }, completed: owed } });
    }
    return found;
  } finally {
    await db.end();
  }
}
