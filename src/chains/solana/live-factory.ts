import type { LiveAdapterInput } from '../live-adapter';
import type { ChainAdapter } from '../types';
import { SolanaAdapter } from './adapter';
import { solanaOptions } from './config';

/** The registry's factory for the SOLANA family: its options are parseSolanaEnv's (src/chains/solana/config.ts). */
export function solanaLiveFactory(input: LiveAdapterInput): ChainAdapter {
  if (input.network !== 'SOLANA') throw new RangeError(`${input.network} is not a SOLANA network`);
  return new SolanaAdapter({ network: input.network, codec: input.codec, options: solanaOptions(input.options), onRpc: input.onRpc, logger: input.logger });
}
