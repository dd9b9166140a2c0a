import type { LiveAdapterInput } from '../live-adapter';
import type { ChainAdapter } from '../types';
import { TronAdapter } from './adapter';
import { TronCodec } from './codec';
import { tronConfigSchema, type TronConfig } from './config';
import { TronConfigError } from './errors';

/** Config field -> the environment variable an operator sets. */
const VARIABLES: Record<string, string> = {
  rpcUrl: 'TRC20_RPC_URL',
  apiKey: 'TRC20_API_KEY',
  tokenAddress: 'TRC20_TOKEN_ADDRESS',
  confirmations: 'TRC20_CONFIRMATIONS',
  feeLimitSun: 'TRC20_FEE_LIMIT',
  pollIntervalMs: 'TRC20_POLL_INTERVAL_MS',
  rps: 'TRC20_RPS',
};

/** The registry's factory for the TRON family: the options are a TronConfig (readTronLive), checked again here. */
export function tronLiveFactory(input: LiveAdapterInput): ChainAdapter {
  if (input.network !== 'TRC20') throw new RangeError(`${input.network} is not a TRON network`);
  if (!(input.codec instanceof TronCodec)) throw new RangeError('TRC20 needs the TRON address codec');
  const parsed = tronConfigSchema.safeParse(input.options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'rpcUrl');
    throw new TronConfigError(VARIABLES[field] ?? field, input.options === undefined ? 'required for live TRC20' : (issue?.message ?? 'invalid'));
  }
  const config: TronConfig = parsed.data;
  return new TronAdapter({ config, codec: input.codec, clock: input.clock, onRpc: input.onRpc });
}
