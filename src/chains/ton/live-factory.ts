import { NETWORK_FACTS } from '../../domain/networks';
import type { LiveAdapterInput } from '../live-adapter';
import type { ChainAdapter } from '../types';
import { TonAdapter } from './adapter';
import { TonCodec } from './codec';
import { parseTonOptions } from './config';

/** The registry's factory for the TON family: validates the opaque options (from readTonLive). */
export function tonLiveFactory(input: LiveAdapterInput): ChainAdapter {
  if (NETWORK_FACTS[input.network].family !== 'ton') throw new RangeError(`${input.network} is not a TON network`);
  const options = parseTonOptions(input.options);
  return new TonAdapter({ ...options, network: input.network, codec: new TonCodec(input.keys), onRpc: input.onRpc });
}
