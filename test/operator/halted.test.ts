import type { Address } from 'viem';
import { eventually, type Stack, startStack } from '../support/stack';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { cliJson, health, watchActors, watcher } from './support';

/** A real EVM node: a reorg deeper than finality must halt the watcher with an alert, never continue. */
describe('operator plane: a halted watcher (hardhat)', () => {
  let node: HardhatNode;
  let chain: TestChain;
  let token: Address;
  let stack: Stack;
  beforeAll(async () => {
    node = await startHardhatNode();
    chain = new TestChain(node.url);
    token = await chain.deployToken(6);
    await chain.mint(token, chain.funder.address, 10n ** 12n);
    stack = await startStack({
      env: { POLYGON_RPC_URL: node.url, POLYGON_CHAIN_ID: '31337', POLYGON_TOKEN_ADDRESS: token, POLYGON_CONFIRMATIONS: '2', POLYGON_POLL_INTERVAL_MS: '100', METRICS_PORT: '0' },
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await node?.stop();
  });

  it('a reorg deeper than finality halts the watcher (state, health, alert metric); a rescan below the fork resumes it', async () => {
    const base = await chain.head();
    await eventually(async () => (Number((await watcher(stack, 'POLYGON')).cursor) >= base ? true : undefined), 10_000, 'the watcher at the head');
    const live = await watcher(stack, 'POLYGON');
    expect(live).toMatchObject({ chain_mode: 'live', state: 'running', rpc_healthy: true });

    const snapshot = await chain.snapshot();
    await chain.mine(3);
    await eventually(async () => (Number((await watcher(stack, 'POLYGON')).cursor) >= base + 3 ? true : undefined), 10_000, 'blocks final on the old branch');
    const feed = watchActors(stack, { kind: 'watcher', network: 'POLYGON' });

    await chain.revert(snapshot);
    await chain.transfer(token, chain.other.address, 1_000_000n); // a different block at base + 1
    await chain.mine(4);
    const halted = await eventually(
      async () => {
        const w = await watcher(stack, 'POLYGON');
        return w.state === 'halted' ? w : undefined;
      },
      10_000,
      'the watcher to halt',
    );
    expect(halted).toMatchObject({ rpc_healthy: false, last_error: expect.stringMatching(/reorg deeper than finality/) });
    expect(Number(halted.cursor)).toBe(base + 3); // nothing of the new branch was applied

    await eventually(async () => (feed.events.some((e) => e.type === 'halted') ? true : undefined), 3_000, 'the halted event');
    expect(JSON.parse(feed.events.find((e) => e.type === 'halted')!.payload_json)).toMatchObject({ code: 'reorg_beyond_finality' });
    await eventually(async () => ((await health(stack, 'chainpay.watcher.POLYGON')) === 'NOT_SERVING' ? true : undefined), 3_000, 'POLYGON NOT_SERVING');
    expect(await health(stack, '')).toBe('SERVING');
    const text = await (await fetch(`http://127.0.0.1:${stack.daemon.metricsPort}/metrics`)).text();
    expect(text).toMatch(/^chainpay_watcher_alerts_total\{network="POLYGON",code="reorg_beyond_finality"\} 1$/m);
    expect(text).toMatch(/^chainpay_watcher_state\{network="POLYGON",state="halted"\} 1$/m);
    expect(text).toMatch(/^chainpay_watcher_rpc_errors_total\{network="POLYGON",code="reorg_beyond_finality"\} 1$/m);
    // Counted by the run loop too (by class), and kept once the halted watch was dropped.
    expect(text).toMatch(/^chainpay_watcher_loop_errors_total\{network="POLYGON",class="ReorgBeyondFinalityError"\} 1$/m);
    expect(text).toMatch(/^chainpay_watcher_loop_steps_total\{network="POLYGON"\} [1-9]\d*$/m);

    // Still halted a poll later: it never continues on its own.
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await watcher(stack, 'POLYGON')).state).toBe('halted');

    // The operator decides: rescan from below the fork on the new branch.
    const rescanned = await cliJson(stack, ['watchers', 'rescan', '--network', 'POLYGON', '--from', String(base + 1)]);
    expect(rescanned.state).toBe('running');
    const head = await chain.head();
    await eventually(
      async () => {
        const w = await watcher(stack, 'POLYGON');
        return w.state === 'running' && Number(w.cursor) === head ? w : undefined;
      },
      10_000,
      'the watcher on the new branch',
    );
    await eventually(async () => ((await health(stack, 'chainpay.watcher.POLYGON')) === 'SERVING' ? true : undefined), 3_000, 'POLYGON SERVING');
    feed.close();
  }, 60_000);
});
