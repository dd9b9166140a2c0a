import { fields } from '../output';
import type { CommandSpec } from '../command';
import { CliError } from '../errors';
import type { DevnetChainState, DevnetClock } from '../../grpc/generated/chainpay/v1/devnet';

const showChain = (s: DevnetChainState): string => fields(s, ['network', 'head', 'head_hash']);

/** A live daemon does not serve DevnetService at all: say so instead of gRPC's "not implemented". */
async function onDevnet<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    if (e instanceof CliError && e.grpcStatus === 'UNIMPLEMENTED') {
      throw new CliError('devnet_unavailable', 'the daemon runs in live mode: devnet controls (pay, mine, reorg, advance-time, reset-time) do not exist there', undefined, e.grpcStatus);
    }
    throw e;
  }
}

export const devnetCommands: readonly CommandSpec[] = [
  {
    name: 'devnet pay',
    usage: '--network CODE --to ADDR --amount A [--memo M] [--token usdt|fake] [--from ADDR]',
    summary: 'send USDT (or a look-alike fake token) on a simulated chain',
    options: {
      network: { type: 'string', required: true },
      to: { type: 'string', required: true },
      amount: { type: 'string', required: true },
      memo: { type: 'string' },
      token: { type: 'string' },
      from: { type: 'string' },
    },
    async run({ args, rpc, out }) {
      const c = rpc.devnet;
      const res = await onDevnet(
        rpc.call(c, c.pay, {
          network: args.str('network'),
          to: args.str('to'),
          amount: args.str('amount'),
          memo: args.opt('memo'),
          token: args.choice('token', ['usdt', 'fake']),
          from: args.opt('from'),
        }),
      );
      out.result(res, () => fields(res, ['tx_hash', 'block_height']));
    },
  },
  {
    name: 'devnet mine',
    usage: '--network CODE [--blocks N]',
    summary: 'mine blocks on a simulated chain (default 1)',
    options: { network: { type: 'string', required: true }, blocks: { type: 'string' } },
    async run({ args, rpc, out }) {
      const c = rpc.devnet;
      const s = await onDevnet(rpc.call(c, c.mine, { network: args.str('network'), blocks: args.int32('blocks', 1) ?? 1 }));
      out.result(s, () => showChain(s));
    },
  },
  {
    name: 'devnet reorg',
    usage: '--network CODE --depth N',
    summary: 'replace the last N blocks of a simulated chain',
    options: { network: { type: 'string', required: true }, depth: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.devnet;
      const s = await onDevnet(rpc.call(c, c.reorg, { network: args.str('network'), depth: args.int32('depth', 1) ?? 1 }));
      out.result(s, () => showChain(s));
    },
  },
  {
    name: 'devnet advance-time',
    usage: '--seconds S',
    summary: "move the daemon's devnet clock forward (expiry, cooldowns, webhook retries)",
    options: { seconds: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.devnet;
      const clock = await onDevnet(rpc.call(c, c.advanceTime, { seconds: args.int64('seconds', 0) ?? '0' }));
      out.result(clock, () => `${fields(clock, ['now', 'offset_seconds'])}\n${aheadNote(clock)}`);
    },
  },
  {
    name: 'devnet reset-time',
    usage: '',
    summary: "put the daemon's devnet clock back to real time (undoes advance-time)",
    options: {},
    async run({ rpc, out }) {
      const c = rpc.devnet;
      const clock = await onDevnet(rpc.call(c, c.resetTime, {}));
      out.result(
        clock,
        () => `${fields(clock, ['now', 'offset_seconds'])}\nthe devnet clock follows real time again; what was scheduled while it was ahead (expiries, cooldowns, webhook retries) keeps its time`,
      );
    },
  },
];

/** advance-time's answer says that the jump lasts: it is stored, and every later timestamp is ahead. */
function aheadNote(clock: DevnetClock): string {
  return `the devnet clock is now ${clock.offset_seconds} s ahead of real time, also after a restart (stored in the database); \`chainpay devnet reset-time\` goes back`;
}
