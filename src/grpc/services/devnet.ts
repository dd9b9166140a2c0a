import { MalformedRequestError, NotFoundError, ValidationError, ForbiddenError } from '../../domain/errors';
import { isNetworkCode, type NetworkCode } from '../../domain/networks';
import type { DevnetControls } from '../../chains/types';
import { DevnetServiceService, type DevnetServiceServer } from '../generated/chainpay/v1/devnet';
import { unary } from '../handler';
import type { ServiceContext } from '../context';

/** The devnet clock's two moves; each stores the new offset (it lasts across restarts). */
export interface DevnetClockControls {
  advance(seconds: number): Promise<{ now: Date; offsetMs: number }>;
  reset(): Promise<{ now: Date; offsetMs: number }>;
}

/** Drives the simulated chains and the daemon clock (chainpay devnet ...). Operator token; devnet only. */
export function devnetService(
  ctx: ServiceContext,
  devnet: ReadonlyMap<NetworkCode, DevnetControls>,
  clock: DevnetClockControls,
): { definition: typeof DevnetServiceService; implementation: DevnetServiceServer } {
  const chain = (code: string): DevnetControls => {
    if (!code) throw new MalformedRequestError('network is required', 'network', 'missing_field');
    if (!isNetworkCode(code)) throw new ValidationError('unknown_network', `unknown network ${code}`, 'network');
    const c = devnet.get(code);
    if (!c) throw new ForbiddenError('not_devnet', `${code} is not running on devnet`);
    return c;
  };
  const count = (n: number, field: string, min: number): number => {
    if (!Number.isInteger(n) || n < min || n > 10_000) throw new ValidationError('invalid_count', `${field} must be an integer from ${min} to 10000`, field);
    return n;
  };
  const implementation: DevnetServiceServer = {
    pay: unary(ctx.logger, 'DevnetPay', async (call) => {
      ctx.auth.operator(call.metadata);
      const r = call.request;
      if (!r.to) throw new MalformedRequestError('to is required', 'to', 'missing_field');
      if (!r.amount) throw new MalformedRequestError('amount is required', 'amount', 'missing_field');
      const token = r.token ?? 'usdt';
      if (token !== 'usdt' && token !== 'fake') throw new ValidationError('invalid_token', 'token must be usdt or fake', 'token');
      const res = await chain(r.network).pay({ to: r.to, amount: r.amount, memo: r.memo ?? null, token, from: r.from });
      ctx.logger.info({ network: r.network, txHash: res.txHash, to: r.to, amount: r.amount, token }, 'devnet payment');
      return { tx_hash: res.txHash, block_height: String(res.blockHeight) };
    }),
    mine: unary(ctx.logger, 'DevnetMine', async (call) => {
      ctx.auth.operator(call.metadata);
      const res = await chain(call.request.network).mine(count(call.request.blocks || 1, 'blocks', 1));
      return { network: call.request.network, head: String(res.head), head_hash: res.hash };
    }),
    reorg: unary(ctx.logger, 'DevnetReorg', async (call) => {
      ctx.auth.operator(call.metadata);
      const res = await chain(call.request.network).reorg(count(call.request.depth, 'depth', 1));
      return { network: call.request.network, head: String(res.head), head_hash: res.hash };
    }),
    advanceTime: unary(ctx.logger, 'DevnetAdvanceTime', async (call) => {
      ctx.auth.operator(call.metadata);
      if (devnet.size === 0) throw new NotFoundError('devnet');
      const seconds = Number(call.request.seconds);
      if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > 10 * 365 * 86400) throw new ValidationError('invalid_seconds', 'seconds must be a non-negative integer', 'seconds');
      const res = await clock.advance(seconds);
      return { now: res.now.toISOString(), offset_seconds: String(Math.floor(res.offsetMs / 1000)) };
    }),
    resetTime: unary(ctx.logger, 'DevnetResetTime', async (call) => {
      ctx.auth.operator(call.metadata);
      if (devnet.size === 0) throw new NotFoundError('devnet');
      const res = await clock.reset();
      return { now: res.now.toISOString(), offset_seconds: String(Math.floor(res.offsetMs / 1000)) };
    }),
  };
  return { definition: DevnetServiceService, implementation };
}
