import { encodeAbiParameters, formatLog, pad, parseEventLogs, toHex, type Hex, type RpcLog } from 'viem';
import { EvmWatchedSet } from './watched-set';
import { TRANSFER_EVENT } from './abi';
import { TRANSFER_TOPIC, transfersFromRawLogs, watchedRawLogs } from './raw-transfer-logs';
import { toTransferObservations, type TransferLog } from './transfer-logs';

const TOKEN = '0xc2132d05d31c914a87c6611c10748aeb04b58e8f';
const ours = '0x00000000000000000000000000000000000000a1';
const theirs = '0x00000000000000000000000000000000000000b2';
const payer = '0x00000000000000000000000000000000000000c3';

function log(i: number, to: string, value: bigint, topics?: Hex[]): RpcLog {
  return {
    address: TOKEN,
    blockHash: pad(toHex(100 + i), { size: 32 }),
    blockNumber: toHex(100 + i),
    data: encodeAbiParameters([{ type: 'uint256' }], [value]),
    logIndex: toHex(i),
    transactionHash: pad(toHex(1000 + i), { size: 32 }),
    transactionIndex: toHex(0),
    removed: false,
    topics: (topics ?? [TRANSFER_TOPIC, pad(payer as Hex, { size: 32 }), pad(to as Hex, { size: 32 })]) as RpcLog['topics'],
  };
}

describe('matching raw Transfer logs before decoding', () => {
  const watched = new EvmWatchedSet();
  watched.addAll([ours]);
  const filter = { network: 'POLYGON' as const, token: TOKEN, decimals: 6, watched };
  const logs = [
    log(0, ours, 2_500_000n),
    log(1, theirs, 7n),
    // ERC-721 style: the token id indexed as a 4th topic; not an ERC-20 transfer.
    log(2, ours, 1n, [TRANSFER_TOPIC, pad(payer as Hex, { size: 32 }), pad(ours as Hex, { size: 32 }), pad('0x01', { size: 32 })]),
    // Another event of the same contract with our address in topics[2].
    log(3, ours, 1n, [pad('0xdead', { size: 32 }), pad(payer as Hex, { size: 32 }), pad(ours as Hex, { size: 32 })]),
    log(4, ours, 0n),
  ];

  it('keeps only ERC-20 Transfer logs to watched recipients', () => {
    expect(watchedRawLogs(logs, watched).map((l) => l.logIndex)).toEqual([toHex(0), toHex(4)]);
  });

  it('gives what decoding every log and then matching gives, minus the 4-topic log viem would accept', () => {
    const erc20Shaped = logs.filter((l) => l.topics.length === 3);
    const decodedAll = parseEventLogs({ abi: [TRANSFER_EVENT], logs: erc20Shaped.map((l) => formatLog(l)), strict: true }) as unknown as TransferLog[];
    const expected = toTransferObservations(decodedAll, filter);
    expect(transfersFromRawLogs(logs, filter)).toEqual(expected);
    expect(expected).toEqual([expect.objectContaining({ to: ours, from: payer, amount: '2.5', eventIndex: 0, blockHeight: 100 })]);
  });
});
