import { toEventSelector, type RpcLog } from 'viem';
import type { UnstampedTransfer } from '../types';
import { TRANSFER_EVENT } from './abi';
import { decodeTransferLog } from './decode-transfer-log';
import { toTransferObservations, type LogFilter, type TransferLog } from './transfer-logs';
import type { EvmAddressMatcher } from './watched-set';

/** topics[0] of every ERC-20 Transfer log. */
export const TRANSFER_TOPIC = toEventSelector(TRANSFER_EVENT);

/**
 * The raw logs of an eth_getLogs answer whose recipient is watched, before any ABI decoding. On a
 * busy token nearly every log goes to someone else, and decoding costs about 100 times the lookup:
 * the recipient is read straight from topics[2] (a 32-byte word, the address in its last 20 bytes),
 * so only the few matches are decoded. A Transfer with other than 3 topics is not an ERC-20 one
 * (ERC-721 indexes the token id too) and is dropped here, as strict decoding would drop it.
 */
export function watchedRawLogs(logs: readonly RpcLog[], watched: EvmAddressMatcher): RpcLog[] {
  const out: RpcLog[] = [];
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i]!;
    const topics = log.topics;
    if (topics.length !== 3 || topics[0] !== TRANSFER_TOPIC) continue;
    // A miss (nearly every log) is answered from the word itself, without building the address.
    if (watched.hasAddressWord(topics[2]!)) out.push(log);
  }
  return out;
}

/** One eth_getLogs answer -> payments to watched addresses: match on the raw topics, decode only the matches. */
export function transfersFromRawLogs(logs: readonly RpcLog[], filter: LogFilter): UnstampedTransfer[] {
  const matched = watchedRawLogs(logs, filter.watched);
  if (matched.length === 0) return [];
  const decoded: TransferLog[] = [];
  for (const log of matched) {
    const transfer = decodeTransferLog(log);
    if (transfer !== null) decoded.push(transfer);
  }
  return toTransferObservations(decoded, filter);
}
