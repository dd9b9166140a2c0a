import { utils } from 'tronweb';
import type { NetworkCode } from '../../domain/networks';
import { fromBaseUnits } from '../amount';
import type { UnstampedTransfer } from '../types';
import { tronAddress } from './codec';
import { RECEIPT_SUCCESS, type TronTransactionInfo } from './node-types';
import type { TronAddressMatcher } from './watched-set';

/** topics[0] of Transfer(address,address,uint256): its keccak256, hex without 0x as TRON logs carry it. */
export const TRANSFER_TOPIC = utils.ethersUtils.keccak256(utils.ethersUtils.toUtf8Bytes('Transfer(address,address,uint256)')).slice(2);
/** A topic is 32 bytes; an address is its low 20. */
const WORD_HEX = 64;
const ADDRESS_AT = WORD_HEX - 40;

export interface BlockTransferFilter {
  readonly network: NetworkCode;
  /** The token contract's 20 bytes, lowercase hex without the 41 prefix (the form logs carry). */
  readonly tokenAccountHex: string;
  readonly decimals: number;
  readonly watched: TronAddressMatcher;
}

/**
 * One block's transaction infos -> USDT payments to watched addresses. A payment is a
 * Transfer(address,address,uint256) log (3 topics, one 32-byte word of data, value > 0) emitted by
 * exactly the configured contract, in a transaction whose receipt is SUCCESS. Events, never call
 * data: transfers made by contracts count, a token whose transfer() returns false without
 * reverting emits no log, and a TRC10 transfer (TransferAssetContract) emits none at all. The key
 * is (txID, index of the log in the info's log list).
 */
export function transfersOfBlock(infos: readonly TronTransactionInfo[], block: { height: number; hash: string }, filter: BlockTransferFilter): UnstampedTransfer[] {
  const out: UnstampedTransfer[] = [];
  for (const info of infos) {
    const logs = info.log;
    if (logs === undefined || logs.length === 0) continue;
    if (info.receipt?.result !== RECEIPT_SUCCESS || info.id === undefined) continue;
    for (let i = 0; i < logs.length; i++) {
      const log = logs[i]!;
      const topics = log.topics;
      if (topics === undefined || topics.length !== 3 || topics[0] !== TRANSFER_TOPIC) continue;
      const toWord = topics[2]!;
      if (toWord.length !== WORD_HEX) continue;
      // Nearly every log goes to someone else: the recipient is matched first, on the raw topic.
      const to = filter.watched.byAccountHex(toWord.slice(ADDRESS_AT).toLowerCase());
      if (to === undefined) continue;
      if (log.address.toLowerCase() !== filter.tokenAccountHex) continue; // a look-alike token
      const value = decodeValue(log.data);
      if (value === null || value <= 0n) continue;
      const fromWord = topics[1]!;
      if (fromWord.length !== WORD_HEX) continue;
      out.push({
        kind: 'transfer',
        network: filter.network,
        txHash: info.id,
        eventIndex: i,
        blockHeight: block.height,
        blockHash: block.hash,
        from: tronAddress(Buffer.from(fromWord.slice(ADDRESS_AT), 'hex')),
        to,
        memo: null,
        amount: fromBaseUnits(value, filter.decimals),
      });
    }
  }
  return out;
}

/** The log's data as Transfer's one uint256, by tronweb's ABI decoder; null when it is not exactly one word. */
function decodeValue(data: string | undefined): bigint | null {
  if (data === undefined || data.length !== WORD_HEX) return null;
  try {
    const [value] = utils.abi.decodeParams([], ['uint256'], `0x${data}`) as [bigint];
    return BigInt(value);
  } catch {
    return null;
  }
}
