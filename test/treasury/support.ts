import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { formatEther, formatUnits, keccak256, encodeAbiParameters, type Address, type Hex } from 'viem';
import type { ChainAdapter } from '../../src/chains/types';
import type { NetworkCode } from '../../src/domain/networks';
import { RawSql } from '../../src/store/raw-sql';
import { accountSum, postJournal } from '../../src/store/repos/ledger';
import { treasuryConfig } from '../../src/treasury/config';
import { Treasury } from '../../src/treasury/treasury';
import type { TestChain } from '../evm/support/test-chain';

/**
 * A deposit credited as the invoice path books it: the pool row, the confirmed payment and the
 * settlement journal (deposits → the merchant's available balance).
 */
export async function creditDeposit(orm: MikroORM, input: { network: string; index: number; address: string; amount: string; merchantId: string; seenAt?: Date }): Promise<void> {
  const em = orm.em.fork();
  const invoice = randomUUID();
  await em.execute(
    `insert into deposit_addresses (network, derivation_index, address, normalized, state, invoice_uuid, created_at) values (?, ?, ?, ?, 'allocated', ?, now())
       on conflict do nothing`,
    [input.network, input.index, input.address, input.address.toLowerCase(), invoice],
  );
  await em.execute(
    `insert into invoice_payments (id, invoice_uuid, network, tx_hash, event_index, from_address, to_address, memo, amount, block_height, block_hash, confirmations, state, late, seen_at)
       values (?, ?, ?, ?, 0, '0x0', ?, null, ?, 1, '0x0', 10, 'confirmed', false, ?)`,
    [randomUUID(), invoice, input.network, `0x${randomUUID().replace(/-/g, '')}`, input.address.toLowerCase(), input.amount, input.seenAt ?? new Date()],
  );
  await em.transactional((tx) =>
    postJournal(
      tx,
      `test:${invoice}:settle`,
      'invoice_settle',
      [
        { account: `chain:${input.network}:deposits`, amount: `-${input.amount}` },
        { account: `merchant:${input.merchantId}:available`, amount: input.amount },
      ],
      new Date(),
    ),
  );
}

export function newTreasury(orm: MikroORM, adapter: ChainAdapter, env: Record<string, string> = {}): Treasury {
  return new Treasury({
    orm,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    clock: { now: () => new Date() },
    adapters: new Map([[adapter.network as NetworkCode, adapter]]),
    // Automatic passes off: the tests run each pass themselves (a timer pass would race them).
    config: treasuryConfig({ TREASURY_INTERVAL_SECONDS: '3600', POLYGON_SWEEP: 'off', ...env }),
    pollIntervalMs: 50,
  });
}

/** Mines a block every `ms` until stopped (confirmations for the sweeps' finality). */
export function keepMining(chain: TestChain, ms = 100): () => Promise<void> {
  let on = true;
  const loop = (async () => {
    while (on) {
      await chain.mine(1);
      await new Promise((r) => setTimeout(r, ms));
    }
  })();
  return async () => {
    on = false;
    await loop;
  };
}

/** Minus the account's sum: an asset account's holding as a positive decimal. */
export async function holding(orm: MikroORM, account: string): Promise<string> {
  const s = await accountSum(orm.em.fork(), account);
  return s.startsWith('-') ? s.slice(1) : s === '0' ? '0' : `-${s}`;
}

export const usdt = (chain: TestChain, token: Address, owner: string): Promise<string> => chain.balanceOf(token, owner).then((v) => formatUnits(v, 6));
export const eth = (chain: TestChain, owner: string): Promise<string> => chain.public.getBalance({ address: owner as Address }).then(formatEther);

/** The fees every sweep transaction paid, read from the chain's receipts (gasUsed × effectiveGasPrice). */
export async function receiptFees(orm: MikroORM, chain: TestChain): Promise<bigint> {
  const rows = await new RawSql(orm).query<{ h: string }>(
    `select topup_tx_hash as h from sweeps where topup_tx_hash is not null union all select transfer_tx_hash from sweeps where transfer_tx_hash is not null`,
  );
  let total = 0n;
  for (const { h } of rows) {
    const r = await chain.public.getTransactionReceipt({ hash: h as Hex });
    total += r.gasUsed * r.effectiveGasPrice;
  }
  return total;
}

/** Sets the token balance of `owner` in storage (TestToken: balanceOf is slot 4), behind the sweeper's back. */
export async function setTokenBalance(chain: TestChain, token: Address, owner: string, units: bigint): Promise<void> {
  const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner as Address, 4n]));
  await chain.rpc('hardhat_setStorageAt', [token, slot, `0x${units.toString(16).padStart(64, '0')}`]);
}
