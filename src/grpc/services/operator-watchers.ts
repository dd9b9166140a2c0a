import { MalformedRequestError, NotFoundError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import type { NetworkWatcher, WatcherStatusView } from '../../actors/watchers/network-watcher';
import type { WatcherStatus } from '../generated/chainpay/v1/operator';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import type { OperatorPiece } from './operator';
import { recordAudit } from '../../store/repos/audit';
import { auditAction, operatorIdentity } from './operator-audit';

export function toWatcherMessage(s: WatcherStatusView): WatcherStatus {
  return {
    network: s.network,
    chain_mode: s.mode,
    head: String(s.head),
    cursor: String(s.cursor),
    lag_blocks: String(s.lagBlocks),
    lag_seconds: Math.round(s.lagSeconds * 1000) / 1000,
    paused: s.state === 'paused',
    state: s.state,
    last_error: s.lastError ?? undefined,
    last_error_at: s.lastErrorAt?.toISOString(),
    rpc_healthy: s.rpcHealthy,
    watched_addresses: s.watched,
    address_pool: s.addressPool.state,
    address_pool_error: s.addressPool.error ?? undefined,
  };
}

function brief(s: WatcherStatusView): Record<string, unknown> {
  return { state: s.state, head: s.head, cursor: s.cursor, lag_blocks: s.lagBlocks };
}

/**
 * The persisted part of pause/resume: the `paused` flag a watcher reads at start. Written here in
 * the audit's transaction, so the flag and its audit entry commit together (never one without
 * the other); the watcher then applies the command in memory and writes the same value again.
 */
const PAUSED_FLAG = 'update watcher_cursors set paused = ? where network = ?';

/** Which states a command changes; in any other state it is a no-op and is not audited. */
const CHANGES: Readonly<Record<'pause' | 'resume', readonly string[]>> = { pause: ['running'], resume: ['paused', 'halted'] };

/**
 * ListWatchers, PauseWatcher, ResumeWatcher, RescanWatcher (`chainpay watchers ...`). Pause and
 * resume are audited in the transaction that persists the `paused` flag, with the state before and
 * after; one that changes nothing (pausing a paused watcher) answers the status and records nothing.
 * A rescan persists nothing by itself (the cursor is saved as blocks are processed), so it is
 * audited once it was accepted.
 */
export function operatorWatchers(ctx: ServiceContext, watchers: ReadonlyMap<NetworkCode, NetworkWatcher>, onChange: () => void = () => undefined): OperatorPiece {
  const find = (raw: string | undefined): NetworkWatcher => {
    const code = raw?.trim().toUpperCase();
    if (!code) throw new MalformedRequestError('network is required', 'network', 'missing_field');
    const w = watchers.get(code as NetworkCode);
    if (!w) throw new NotFoundError('watcher', code);
    return w;
  };
  const act = async (
    md: Parameters<typeof operatorIdentity>[1],
    network: string | undefined,
    action: string,
    run: (w: NetworkWatcher) => Promise<void>,
    detail: Record<string, unknown> = {},
  ): Promise<WatcherStatus> => {
    const actor = operatorIdentity(ctx, md);
    const w = find(network);
    const before = await w.refresh();
    await run(w);
    const after = await w.refresh();
    await auditAction(ctx, { actor, action, target: `watcher:${w.network}`, before: brief(before), after: { ...brief(after), ...detail } });
    ctx.logger.warn({ network: w.network, action, actor, ...detail }, 'operator changed a watcher');
    onChange();
    return toWatcherMessage(after);
  };
  const toggle = async (md: Parameters<typeof operatorIdentity>[1], network: string | undefined, command: 'pause' | 'resume'): Promise<WatcherStatus> => {
    const actor = operatorIdentity(ctx, md);
    const w = find(network);
    const before = await w.refresh();
    const action = `watcher.${command}`;
    if (!CHANGES[command].includes(before.state)) {
      ctx.logger.info({ network: w.network, action, actor, state: before.state }, 'operator watcher command changed nothing (not audited)');
      return toWatcherMessage(before);
    }
    const paused = command === 'pause';
    const expected = { ...brief(before), state: paused ? 'paused' : 'running', paused };
    await ctx.orm.em.fork().transactional(async (tx) => {
      await tx.execute(PAUSED_FLAG, [paused, w.network]);
      recordAudit(tx, { actor, action, target: `watcher:${w.network}`, before: { ...brief(before), paused: before.state === 'paused' }, after: expected, at: ctx.clock.now() });
    });
    await (paused ? w.pause() : w.resume());
    const after = await w.refresh();
    ctx.logger.warn({ network: w.network, action, actor, from: before.state, to: after.state }, 'operator changed a watcher');
    onChange();
    return toWatcherMessage(after);
  };
  return {
    listWatchers: unary(ctx.logger, 'ListWatchers', async (call) => {
      ctx.auth.operator(call.metadata);
      const list = await Promise.all([...watchers.values()].map((w) => w.refresh()));
      return { watchers: list.map(toWatcherMessage) };
    }),
    pauseWatcher: unary(ctx.logger, 'PauseWatcher', (call) => toggle(call.metadata, call.request.network, 'pause')),
    resumeWatcher: unary(ctx.logger, 'ResumeWatcher', (call) => toggle(call.metadata, call.request.network, 'resume')),
    rescanWatcher: unary(ctx.logger, 'RescanWatcher', async (call) => {
      ctx.auth.operator(call.metadata);
      const from = Number(call.request.from_height);
      if (!/^\d+$/.test(call.request.from_height ?? '') || !Number.isSafeInteger(from)) throw new MalformedRequestError('from_height must be a block height', 'from_height');
      return act(call.metadata, call.request.network, 'watcher.rescan', (w) => w.rescan(from), { from_height: from });
    }),
  };
}
