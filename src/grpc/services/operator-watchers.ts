import { MalformedRequestError, NotFoundError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import type { NetworkWatcher, WatcherStatusView } from '../../actors/watchers/network-watcher';
import type { WatcherStatus } from '../generated/chainpay/v1/operator';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import type { OperatorPiece } from './operator';
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
  };
}

function brief(s: WatcherStatusView): Record<string, unknown> {
  return { state: s.state, head: s.head, cursor: s.cursor, lag_blocks: s.lagBlocks };
}

/** ListWatchers, PauseWatcher, ResumeWatcher, RescanWatcher (`chainpay watchers ...`); actions audited. */
export function operatorWatchers(ctx: ServiceContext, watchers: ReadonlyMap<NetworkCode, NetworkWatcher>, onChange: () => void = () => undefined): OperatorPiece {
  const find = (raw: string | undefined): NetworkWatcher => {
    const code = raw?.trim().toUpperCase();
    if (!code) throw new MalformedRequestError('network is required', 'network', 'missing_field');
    const w = watchers.get(code as NetworkCode);
    if (!w) throw new NotFoundError('watcher', code);
    return w;
  };
  const act = async (md: Parameters<typeof operatorIdentity>[1], network: string | undefined, action: string, run: (w: NetworkWatcher) => Promise<void>, detail: Record<string, unknown> = {}): Promise<WatcherStatus> => {
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
  return {
    listWatchers: unary(ctx.logger, 'ListWatchers', async (call) => {
      ctx.auth.operator(call.metadata);
      const list = await Promise.all([...watchers.values()].map((w) => w.refresh()));
      return { watchers: list.map(toWatcherMessage) };
    }),
    pauseWatcher: unary(ctx.logger, 'PauseWatcher', (call) => act(call.metadata, call.request.network, 'watcher.pause', (w) => w.pause())),
    resumeWatcher: unary(ctx.logger, 'ResumeWatcher', (call) => act(call.metadata, call.request.network, 'watcher.resume', (w) => w.resume())),
    rescanWatcher: unary(ctx.logger, 'RescanWatcher', async (call) => {
      ctx.auth.operator(call.metadata);
      const from = Number(call.request.from_height);
      if (!/^\d+$/.test(call.request.from_height ?? '') || !Number.isSafeInteger(from)) throw new MalformedRequestError('from_height must be a block height', 'from_height');
      return act(call.metadata, call.request.network, 'watcher.rescan', (w) => w.rescan(from), { from_height: from });
    }),
  };
}
