import type { Log } from 'viem';
import type { NetworkCode } from '../../domain/networks';
import { fromBaseUnits } from '../amount';
import type { UnstampedTransfer } from '../types';
import type { TRANSFER_EVENT } from './abi';
import type { EvmAddressMatcher } from './watched-set';

export type TransferLog = Log<bigint, number, false, typeof TRANSFER_EVENT, true>;

export interface LogFilter {
  readonly network: NetworkCode;
  /** Lowercase token address. */
  readonly token: string;
  readonly decimals: number;
  /** The watched recipients (evmMatcher of the watch's set). */
  readonly watched: EvmAddressMatcher;
}

/**
 * Decoded Transfer logs -> payments (unstamped: the follower adds each block's time from its header). Ignored: logs of another contract (look-alike tokens),
 * `removed` logs (their block left the chain), pending logs, zero-value transfers, and transfers
 * to addresses nobody watches. Reverted transactions emit no logs at all.
 */
export function toTransferObservations(logs: readonly TransferLog[], filter: LogFilter): UnstampedTransfer[] {
  const out: UnstampedTransfer[] = [];
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i]!;
    // Nearly every log of a busy token goes to someone else: the recipient is checked first, so a
    // miss costs one lookup and touches nothing else of the log.
    const to = log.args.to;
    if (to === undefined || !filter.watched.hasHex(to)) continue;
    const recipient = to.toLowerCase();
    // Nodes send lowercase addresses: compare as is first, lowercase only when that fails.
    if (log.removed || (log.address !== filter.token && log.address.toLowerCase() !== filter.token)) continue;
    if (log.blockNumber === null || log.blockHash === null || log.transactionHash === null || log.logIndex === null) continue;
    const { from, value } = log.args;
    if (from === undefined || value === undefined || value <= 0n) continue;
    out.push({
      kind: 'transfer',
      network: filter.network,
      txHash: log.transactionHash,
      eventIndex: log.logIndex,
      blockHeight: Number(log.blockNumber),
      blockHash: log.blockHash,
      from: from.toLowerCase(),
      to: recipient,
      memo: null,
      amount: fromBaseUnits(value, filter.decimals),
    });
  }
  return out;
}
