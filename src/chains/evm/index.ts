/** EVM family (BEP20, POLYGON, ARBITRUM): the only place of the daemon that talks JSON-RPC via viem. */
export { createEvmAdapter, EvmAdapter, type EvmWatch } from './adapter';
export { EVM_NETWORKS, isEvmNetwork, type EvmAdapterConfig, type EvmNetworkCode } from './config';
export {
  AdapterNotInitializedError,
  ChainIdMismatchError,
  EvmAdapterError,
  EvmConfigError,
  PayoutBroadcastError,
  PayoutInsufficientGasError,
  PayoutInsufficientTokenError,
  PayoutNonceConsumedError,
  PayoutRejectedError,
  TokenContractMissingError,
  TokenDecimalsMismatchError,
  type HotWalletShortfall,
} from './errors';
export { evmLiveFactory, evmLiveOptions, type EvmLiveOptions, type EvmNetworkSettings } from './live-factory';
