import pino from 'pino';
import { createMerchant, eventually, type MerchantCredentials, type Stack, startStack } from '../support/stack';
import { createInvoice } from '../invoices/helpers';
import { cli, query, watcher } from './support';

/** The value of one sample line of a /metrics text. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * A wrong derivation injected into a real daemon: the derivation thread's second implementation
 * answers another address for POLYGON's 61st address (the thread is wrapped through the daemon's
 * wrapDerivation option). The first 50 are derived at start; the refill after them holds the 61st,
 * and must stop there. (POLYGON shares the EVM index space with BEP20 and ARBITRUM: its indexes are
 * whatever the space had next, so the test reads them rather than assuming 0..49.)
 */
describe('operator plane: two derivations of a deposit address differ', () => {
  /** POLYGON's address (in its own order of derivation) whose check is wrong, and its index once derived. */
  const WRONG_NTH = 60;
  let WRONG = -1;
  let stack: Stack;
  let m: MerchantCredentials;
  const errors: Record<string, unknown>[] = [];
  const derivedAtWrong: string[] = [];
  beforeAll(async () => {
    const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line) as Record<string, unknown>) });
    stack = await startStack({
      env: { METRICS_PORT: '0', ADDRESS_POOL_MIN_FREE: '20', ADDRESS_POOL_BATCH: '50' },
      logger,
      daemon: {
        wrapDerivation: (derive) => {
          let polygonDerived = 0;
          return async (network, from, count) => {
            const derived = await derive(network, from, count);
            if (network !== 'POLYGON') return derived;
            const before = polygonDerived;
            polygonDerived += count;
            if (WRONG_NTH < before || WRONG_NTH >= before + count) return derived;
            const k = WRONG_NTH - before;
            WRONG = from + k;
            derivedAtWrong.push(derived.addresses[k]!);
            return { addresses: derived.addresses, check: derived.check.map((a, j) => (j === k ? derived.check[j + 1]! : a)) };
          };
        },
      },
    });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("keeps the address out of the pool and stops POLYGON's refill: error log, watcher view, CLI and metric; other networks go on", async () => {
    const polygonIndexes = async (): Promise<number[]> =>
      (await query<{ derivation_index: number }>(stack, `select derivation_index from deposit_addresses where network = 'POLYGON' order by derivation_index`)).map((r) => r.derivation_index);
    const firstBatch = await polygonIndexes();
    expect(firstBatch).toHaveLength(50);
    expect(firstBatch).toEqual(Array.from({ length: 50 }, (_, i) => firstBatch[0]! + i));
    expect((await watcher(stack, 'POLYGON')).address_pool).toBe('ok');

    // Invoices use up the pool until the keeper counts it again and refills: that refill meets index 60.
    for (let i = 0; i < 20; i++) expect((await createInvoice(stack, m, { amount: '5', network: 'POLYGON' })).address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const halted = await eventually(
      async () => {
        const w = await watcher(stack, 'POLYGON');
        return w.address_pool === 'halted' ? w : undefined;
      },
      30_000,
      'the POLYGON pool to halt',
    );
    expect(halted.address_pool_error).toMatch(new RegExp(`^two derivations of POLYGON deposit address ${WRONG} differ \\(second implementation\\): 0x`));
    // The watcher itself keeps watching: deposits to the addresses already handed out still count.
    expect(halted).toMatchObject({ state: 'running', rpc_healthy: true });

    // Not one address of the refused chunk was stored, the one derived at the wrong index least of all.
    expect(WRONG).toBeGreaterThan(firstBatch[49]!);
    expect(await polygonIndexes()).toEqual(firstBatch);
    expect(derivedAtWrong).toHaveLength(1);
    expect(await query(stack, `select 1 from deposit_addresses where normalized = ?`, [derivedAtWrong[0]!.toLowerCase()])).toEqual([]);

    expect(errors.filter((e) => typeof e.msg === 'string' && e.msg.includes('address pool refill stopped'))).toEqual([
      expect.objectContaining({ level: 50, alert: 'address_pool_halted', network: 'POLYGON', derivationIndex: WRONG, derived: derivedAtWrong[0], checkedBy: 'second implementation' }),
    ]);

    const human = await cli(stack, ['watchers', '--network', 'POLYGON']);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/ADDRESS_POOL/);
    expect(human.out).toMatch(/POLYGON\s+running\s+devnet.*\shalted\s/);

    const metrics = await (await fetch(`http://127.0.0.1:${stack.daemon.metricsPort}/metrics`)).text();
    expect(sample(metrics, 'chainpay_address_pool_halted{network="POLYGON"}')).toBe(1);
    expect(sample(metrics, 'chainpay_address_pool_halted{network="BEP20"}')).toBe(0);

    // Another network is not affected: its invoices get addresses and its pool refills past its first batch.
    for (let i = 0; i < 40; i++) await createInvoice(stack, m, { amount: '5', network: 'BEP20' });
    await eventually(
      async () => {
        const [row] = await query<{ n: string }>(stack, `select count(*)::text as n from deposit_addresses where network = 'BEP20'`);
        return Number(row!.n) > 50 ? true : undefined;
      },
      30_000,
      'the BEP20 pool to refill',
    );
    expect(await watcher(stack, 'BEP20')).toMatchObject({ address_pool: 'ok' });
    expect(await watcher(stack, 'TON')).toMatchObject({ address_pool: 'none' });
    expect((await watcher(stack, 'BEP20')).address_pool_error).toBeUndefined();
  });
});
