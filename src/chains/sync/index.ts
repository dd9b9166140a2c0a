/** Block-window sync engine shared by block-based chain families (EVM, TRON). */
export { BlockFollower } from './follower';
export { ChainSyncError, InconsistentChainError, RangeTooLargeError, ReorgBeyondFinalityError, RpcTimeoutError, RpcTransientError } from './errors';
export { errorClassOf, isRetryable } from './retry-rule';
export { RunLoop, type RunLoopOptions, type RunLoopState, type RunLoopStats } from './run-loop';
export type { SyncErrorDetails } from './errors';
export type { BlockHeader, BlockSource, FollowerOptions, FollowerState, SyncStatus } from './types';
export { DEFAULT_RANGE_GROWTH, RangeSize, type RangeGrowth } from './range-size';
