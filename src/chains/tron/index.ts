/** TRON family (TRC20): the only place of the daemon that imports tronweb. */
export { TronAdapter, type TronWatch } from './adapter';
export { readTronLive, type TronConfig } from './config';
export { TronConfigError, TronNodeUnavailableError, TronTokenContractMissingError, TronTokenDecimalsError } from './errors';
export { tronLiveFactory } from './live-factory';
export { TronBroadcastRefusedError, TronFeeLimitTooLowError, TronHotWalletShortError, TronPayoutRejectedError } from './payout-errors';
