import { randomUUID } from 'node:crypto';
import { parseEther, type Address } from 'viem';
import type { EvmAdapter } from '../../src/chains/evm';
import { Dec } from '../../src/domain/decimal';
import { RawSql } from '../../src/store/raw-sql';
import { merchantBalance } from '../../src/store/repos/ledger';
import { coldAccount, depositsAccount, gasDepositsAccount, gasFeesAccount, gasHotAccount, hotAccount, inTransitAccount } from '../../src/store/repos/ledger-accounts';
import { openSweeps } from '../../src/treasury/sweep-rows';
import { testAdapter, testCodec } from '../evm/support/adapter';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { useMigratedDatabase } from '../support/database';
import { creditDeposit, eth, holding, keepMining, newTreasury, receiptFees, setTokenBalance, usdt } from './support';

const NET = 'POLYGON';
const codec = testCodec();
const hot = codec.hotWallet().address;
const merchant = randomUUID();
const addr = (i: number): string => codec.deriveDepositAddress(i);

/**
 * EVM sweeps on hardhat (live mode adapter, real PostgreSQL): deposits credited on pool addresses
 * are moved to the hot wallet with exactly the gas their transfer needs topped up from it, every
 * step in the ledger, which ends equal to what the chain holds.
 */
describe('EVM treasury sweeps on hardhat', () => {
  const db = useMigratedDatabase('cp_treasury');
  let node: HardhatNode;
  let chain: TestChain;
  let token: Address;
  let adapter: EvmAdapter;

  beforeAll(async () => {
    node = await startHardhatNode();
    chain = new TestChain(node.url);
    token = await chain.deployToken(6);
    await chain.fundEth(hot, '5');
    await chain.mint(token, hot, 10_000_000n); // 10 USDT of the operator's own
    adapter = await testAdapter({ rpcUrl: node.url, tokenAddress: token, confirmations: 2 });
  }, 60_000);
  afterAll(async () => {
    await adapter?.close();
    await node?.stop();
  });

  /** `vanished`: USDT the test took off an address behind the ledger's back (the revert test). */
  const expectLedgerEqualsChain = async (addresses: string[], vanished = '0'): Promise<void> => {
    const onAddresses = await Promise.all(addresses.map((a) => usdt(chain, token, a)));
    expect(await holding(db.orm, depositsAccount(NET))).toBe(onAddresses.reduce((s, v) => s.plus(v), new Dec(vanished)).toFixed());
    expect(await holding(db.orm, inTransitAccount(NET))).toBe('0');
    expect(await holding(db.orm, hotAccount(NET))).toBe(await usdt(chain, token, hot));
    expect(await holding(db.orm, gasHotAccount(NET))).toBe(await eth(chain, hot));
    const gasOnAddresses = await Promise.all(addresses.map((a) => eth(chain, a)));
    expect(await holding(db.orm, gasDepositsAccount(NET))).toBe(gasOnAddresses.reduce((s, v) => s.plus(v), new Dec(0)).toFixed());
  };

  it('sweeps the addresses at the minimum into the hot wallet, books the fees the chain charged, and leaves merchants alone', async () => {
    const amounts = ['50', '30.5', '0.4'];
    for (const [i, amount] of amounts.entries()) {
      await chain.mint(token, addr(i), BigInt(new Dec(amount).times(1e6).toFixed()));
      await creditDeposit(db.orm, { network: NET, index: i, address: addr(i), amount, merchantId: merchant });
    }
    const before = await merchantBalance(db.orm.em.fork(), merchant);
    const treasury = newTreasury(db.orm, adapter);
    await treasury.start();
    const stopMining = keepMining(chain);
    let planned: Awaited<ReturnType<typeof treasury.sweep>> = [];
    try {
      planned = await treasury.sweep(NET, { manual: false, dryRun: false });
      expect(planned.map((p) => [p.address, p.amount, p.target])).toEqual([
        [addr(0), '50', 'hot'],
        [addr(1), '30.5', 'hot'],
      ]);
      // The top-up is exactly the transfer's gas at the max fee: the address held none.
      for (const p of planned) expect(p.gasTopUp).toBe(p.fee);
      expect(await treasury.settled(30_000)).toBe(true);
    } finally {
      await stopMining();
      await treasury.stop();
    }
    const rows = await new RawSql(db.orm).query<{ outcome: string }>(`select outcome from sweeps order by created_at`);
    expect(rows.map((r) => r.outcome)).toEqual(['completed', 'completed']);
    expect(await usdt(chain, token, hot)).toBe('90.5');
    expect(await usdt(chain, token, addr(2))).toBe('0.4'); // below POLYGON_SWEEP_MIN (1): stays
    await expectLedgerEqualsChain([0, 1, 2].map(addr));
    // The expense is what the receipts charged, to the wei.
    const fees = await receiptFees(db.orm, chain);
    expect(await holding(db.orm, gasFeesAccount(NET))).toBe(new Dec(fees.toString()).div(1e18).toFixed());
    // Dust left on a swept address: at most one estimate's slack (gas × (maxFee − price paid)).
    for (const [i, p] of planned.entries()) expect(new Dec(await eth(chain, addr(i))).lte(p.fee)).toBe(true);
    expect(await merchantBalance(db.orm.em.fork(), merchant)).toEqual(before);
  }, 60_000);

  it('voids a sweep whose transfer reverts and sweeps the address again', async () => {
    await chain.mint(token, addr(3), 20_000_000n);
    await creditDeposit(db.orm, { network: NET, index: 3, address: addr(3), amount: '20', merchantId: merchant });
    const treasury = newTreasury(db.orm, adapter);
    await treasury.start();
    await chain.setAutomine(false);
    try {
      const [p] = await treasury.sweep(NET, { manual: false, dryRun: false });
      expect(p!.amount).toBe('20');
      // Mine the top-up, then, with the transfer waiting in the mempool, take 5 USDT off the address.
      const sent = async (): Promise<string | null> => (await openSweeps(new RawSql(db.orm).query, NET))[0]?.transfer?.txHash ?? null;
      for (let i = 0; i < 200 && (await sent()) === null; i++) {
        await chain.mine(1);
        await new Promise((r) => setTimeout(r, 50));
      }
      const hash = (await sent())!;
      for (let i = 0; i < 100 && (await chain.public.getTransaction({ hash: hash as `0x${string}` }).catch(() => null)) === null; i++) await new Promise((r) => setTimeout(r, 50));
      await setTokenBalance(chain, token, addr(3), 15_000_000n);
      await chain.setAutomine(true);
      const stopMining = keepMining(chain);
      try {
        expect(await treasury.settled(30_000)).toBe(true);
        const receipt = await chain.public.getTransactionReceipt({ hash: hash as `0x${string}` });
        expect(receipt.status).toBe('reverted');
        // Voided: in transit back to deposits; what the chain lost was 5 USDT behind our back, so the
        // next pass moves the 15 the address holds (the ledger shows the 5 gap on deposits).
        expect(await holding(db.orm, inTransitAccount(NET))).toBe('0');
        const again = await treasury.sweep(NET, { manual: false, dryRun: false });
        expect(again.map((a) => [a.address, a.amount])).toEqual([[addr(3), '15']]);
        expect(await treasury.settled(30_000)).toBe(true);
      } finally {
        await stopMining();
      }
    } finally {
      await chain.setAutomine(true);
      await treasury.stop();
    }
    const rows = await new RawSql(db.orm).query<{ outcome: string; amount: string }>(`select outcome, amount::text from sweeps where address = $1 order by created_at`, [addr(3)]);
    expect(rows.map((r) => r.outcome)).toEqual(['reverted', 'completed']);
    expect(await usdt(chain, token, addr(3))).toBe('0');
    // The fee of the reverted transfer is booked too: the expense equals all receipts.
    expect(await holding(db.orm, gasFeesAccount(NET))).toBe(new Dec((await receiptFees(db.orm, chain)).toString()).div(1e18).toFixed());
    // The second sweep used what the first top-up left: the address kept enough gas, no new top-up.
    const topups = await new RawSql(db.orm).query<{ n: string }>(`select count(*)::text as n from sweeps where address = $1 and topup_raw is not null`, [addr(3)]);
    expect(Number(topups[0]!.n)).toBeLessThanOrEqual(2);
  }, 60_000);

  it('with POLYGON_HOT_MAX set, sends only the excess to the cold address', async () => {
    const cold = codec.sampleAddress('cold-vault');
    const hotNow = await usdt(chain, token, hot);
    // Room for 10 more in the hot wallet; two addresses of 8 each: 8 to hot, then 2 to hot and 6 to cold.
    const hotMax = new Dec(hotNow).plus(10).toFixed();
    for (const i of [4, 5]) {
      await chain.mint(token, addr(i), 8_000_000n);
      await creditDeposit(db.orm, { network: NET, index: i, address: addr(i), amount: '8', merchantId: merchant });
    }
    const treasury = newTreasury(db.orm, adapter, { POLYGON_HOT_MAX: hotMax, POLYGON_COLD_ADDRESS: cold });
    await treasury.start();
    const stopMining = keepMining(chain);
    try {
      const first = await treasury.sweep(NET, { manual: false, dryRun: false });
      expect(first.map((p) => [p.address, p.amount, p.target])).toEqual([
        [addr(4), '8', 'hot'],
        [addr(5), '2', 'hot'],
      ]);
      expect(await treasury.settled(30_000)).toBe(true);
      const second = await treasury.sweep(NET, { manual: false, dryRun: false });
      expect(second.map((p) => [p.address, p.amount, p.target])).toEqual([[addr(5), '6', 'cold']]);
      expect(await treasury.settled(30_000)).toBe(true);
    } finally {
      await stopMining();
      await treasury.stop();
    }
    expect(await usdt(chain, token, hot)).toBe(hotMax);
    expect(await usdt(chain, token, cold)).toBe('6');
    expect(await holding(db.orm, coldAccount(NET))).toBe('6');
    await expectLedgerEqualsChain([0, 1, 2, 3, 4, 5].map(addr), '5');
  }, 60_000);

  it('a deposit arriving while a sweep is in flight is credited as usual and moved by the next sweep', async () => {
    await chain.mint(token, addr(7), 10_000_000n);
    await creditDeposit(db.orm, { network: NET, index: 7, address: addr(7), amount: '10', merchantId: merchant });
    const treasury = newTreasury(db.orm, adapter);
    await treasury.start();
    await chain.setAutomine(false);
    const before = await merchantBalance(db.orm.em.fork(), merchant);
    try {
      const [p] = await treasury.sweep(NET, { manual: false, dryRun: false, address: addr(7) });
      expect(p!.amount).toBe('10');
      const sent = async (): Promise<string | null> => (await openSweeps(new RawSql(db.orm).query, NET))[0]?.transfer?.txHash ?? null;
      for (let i = 0; i < 200 && (await sent()) === null; i++) {
        await chain.mine(1);
        await new Promise((r) => setTimeout(r, 50));
      }
      const hash = (await sent()) as `0x${string}`;
      for (let i = 0; i < 100 && (await chain.public.getTransaction({ hash }).catch(() => null)) === null; i++) await new Promise((r) => setTimeout(r, 50));
      // In flight (mined, not final): 4 more arrive and are credited; the signed transfer moved exactly 10.
      await chain.mine(1);
      await chain.setAutomine(true);
      await chain.mint(token, addr(7), 4_000_000n);
      await creditDeposit(db.orm, { network: NET, index: 7, address: addr(7), amount: '4', merchantId: merchant });
      const stopMining = keepMining(chain);
      try {
        expect(await treasury.settled(30_000)).toBe(true);
        expect(await usdt(chain, token, addr(7))).toBe('4');
        const next = await treasury.sweep(NET, { manual: false, dryRun: false, address: addr(7) });
        expect(next.map((n) => n.amount)).toEqual(['4']);
        expect(await treasury.settled(30_000)).toBe(true);
      } finally {
        await stopMining();
      }
    } finally {
      await chain.setAutomine(true);
      await treasury.stop();
    }
    expect(await usdt(chain, token, addr(7))).toBe('0');
    const after = await merchantBalance(db.orm.em.fork(), merchant);
    expect(new Dec(after.available).minus(before.available).toFixed()).toBe('4'); // the new deposit's credit, nothing from the sweeps
    await expectLedgerEqualsChain([0, 1, 2, 3, 4, 5, 7].map(addr), '5');
  }, 60_000);

  it('a dry run moves nothing', async () => {
    await chain.mint(token, addr(6), 3_000_000n);
    await creditDeposit(db.orm, { network: NET, index: 6, address: addr(6), amount: '3', merchantId: merchant });
    const treasury = newTreasury(db.orm, adapter);
    const planned = await treasury.sweep(NET, { manual: true, dryRun: true });
    const moving = planned.filter((p) => p.target !== null);
    expect(moving.map((p) => [p.address, p.amount])).toEqual([
      [addr(2), '0.4'],
      [addr(6), '3'],
    ]);
    expect(planned.every((p) => p.sweepId === null)).toBe(true);
    expect(await usdt(chain, token, addr(6))).toBe('3');
    // What it would cost: the fee quoted, all of it to top up (these addresses hold no gas yet).
    for (const p of moving) {
      expect(parseEther(p.fee) > 0n).toBe(true);
      expect(p.gasTopUp).toBe(p.fee);
    }
  });
});
