export { TonAdapter, type TonAdapterInput } from './adapter';
export { TonCodec, TON_HOT_WALLET_PATH, TON_SHARED_WALLET_PATH } from './codec';
export { parseTonOptions, readTonLive, type TonLiveOptions } from './config';
export { tonLiveFactory } from './live-factory';
export { TonJettonDecimalsError } from './token-errors';
