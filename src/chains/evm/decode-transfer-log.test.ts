import { createHash } from 'node:crypto';
import { encodeAbiParameters, formatLog, pad, parseEventLogs, toHex, type Hex, type RpcLog } from 'viem';
import { TRANSFER_EVENT } from './abi';
import { decodeTransferLog } from './decode-transfer-log';
import { TRANSFER_TOPIC } from './raw-transfer-logs';
import type { TransferLog } from './transfer-logs';

const TOKEN = '0xc2132d05d31c914a87c6611c10748aeb04b58e8f';
const word = (seed: string): Hex => `0x${createHash('sha256').update(seed).digest('hex')}`;
const addressWord = (seed: string): Hex => pad(word(seed).slice(0, 42) as Hex, { size: 32 });

function log(i: number, from: Hex, to: Hex, data: Hex): RpcLog {
  return {
    address: TOKEN,
    blockHash: word(`block ${i}`),
    blockNumber: toHex(1_000 + i),
    data,
    logIndex: toHex(i),
    transactionHash: word(`tx ${i}`),
    transactionIndex: toHex(i % 7),
    removed: false,
    topics: [TRANSFER_TOPIC, from, to],
  };
}

/** viem's strict decoding, the addresses lowercased: what decodeTransferLog must give. */
function viaViem(raw: RpcLog): TransferLog | null {
  const [decoded] = parseEventLogs({ abi: [TRANSFER_EVENT], logs: [formatLog(raw)], strict: true }) as unknown as TransferLog[];
  if (decoded === undefined) return null;
  return { ...decoded, args: { ...decoded.args, from: decoded.args.from.toLowerCase(), to: decoded.args.to.toLowerCase() } } as TransferLog;
}

describe('decodeTransferLog', () => {
  const value = (v: bigint) => encodeAbiParameters([{ type: 'uint256' }], [v]);
  const cases: Array<[string, RpcLog]> = [
    ['an ordinary transfer', log(0, addressWord('a'), addressWord('b'), value(2_500_000n))],
    ['the largest uint256', log(1, addressWord('c'), addressWord('d'), value(2n ** 256n - 1n))],
    ['a zero value (decoded; the caller drops it)', log(2, addressWord('e'), addressWord('f'), value(0n))],
    ['upper-case hex in the topics', log(3, addressWord('g').toUpperCase().replace('0X', '0x') as Hex, addressWord('h').toUpperCase().replace('0X', '0x') as Hex, value(7n))],
    ['non-zero upper bytes in a topic (the low 20 bytes count)', log(4, word('i'), word('j'), value(9n))],
    ['data longer than one word (the first word counts)', log(5, addressWord('k'), addressWord('l'), `${value(11n)}${'00'.repeat(32)}` as Hex)],
    ['empty data', log(6, addressWord('m'), addressWord('n'), '0x')],
    ['data shorter than a word', log(7, addressWord('o'), addressWord('p'), '0x0102')],
    ['a topic that is not hex', log(8, `0x${'zz'.repeat(32)}` as Hex, addressWord('q'), value(5n))],
  ];

  it.each(cases)('decodes %s as viem strict decoding does', (_name, raw) => {
    expect(decodeTransferLog(raw)).toEqual(viaViem(raw));
  });

  it('refuses exactly the malformed ones of those', () => {
    expect(cases.filter(([, raw]) => decodeTransferLog(raw) === null).map(([name]) => name)).toEqual(['empty data', 'data shorter than a word', 'a topic that is not hex']);
  });

  it('refuses what viem refuses and accepts the rest, over random logs', () => {
    let accepted = 0;
    for (let i = 0; i < 300; i++) {
      const h = word(`random ${i}`);
      const dataBytes = [0, 1, 31, 32, 33, 64][i % 6]!;
      const raw = log(
        i,
        addressWord(`from ${i}`),
        i % 2 ? word(`to ${i}`) : addressWord(`to ${i}`),
        `0x${h
          .slice(2)
          .repeat(3)
          .slice(0, dataBytes * 2)}` as Hex,
      );
      const expected = viaViem(raw);
      expect(decodeTransferLog(raw)).toEqual(expected);
      if (expected !== null) accepted++;
    }
    expect(accepted).toBe(150); // data of 32 bytes or more: three sizes in six
  });

  it('refuses a topic that is not 32 bytes', () => {
    const raw = log(0, addressWord('a'), addressWord('b'), value(1n));
    expect(decodeTransferLog({ ...raw, topics: [TRANSFER_TOPIC, addressWord('a'), '0x1234'] })).toBeNull();
  });
});
