/** SOLANA family (USDT SPL): the only place of the daemon that imports @solana/web3.js and @solana/spl-token. */
export { SolanaAdapter, type SolanaAdapterConfig } from './adapter';
export { parseSolanaEnv, SOLANA_USDT_MINT, type SolanaLiveOptions } from './config';
export { solanaLiveFactory } from './live-factory';
export { SolanaCodec } from './codec';
