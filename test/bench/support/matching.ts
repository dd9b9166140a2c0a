import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { encodeAbiParameters, formatLog, getAddress, pad, parseEventLogs, toEventSelector, toHex, type Hex, type RpcLog } from 'viem';
import { TRANSFER_EVENT } from '../../../src/chains/evm/abi';
import { toTransferObservations, type TransferLog } from '../../../src/chains/evm/transfer-logs';
import { transfersFromRawLogs } from '../../../src/chains/evm/raw-transfer-logs';
import { EvmWatchedSet } from '../../../src/chains/evm/watched-set';
import { median } from './stats';

export interface MatchOptions {
  readonly watched: number;
  readonly logs: number;
  /** Fraction of the logs whose recipient is watched. */
  readonly hitRate: number;
  readonly iterations: number;
}

export interface MatchResult {
  /** transfersFromRawLogs over the raw eth_getLogs answer: what the EVM block source does per range (match on topics, decode the matches). */
  readonly logsPerSecond: number;
  /** A bare `Set.has` loop over the same recipients (lowercase strings prepared in advance). */
  readonly baselinePerSecond: number;
  /** For comparison, the earlier way: viem decodes every log, then the decoded recipients are matched. */
  readonly decodeAndMatchPerSecond: number;
  readonly matched: number;
  readonly runs: { ours: number[]; baseline: number[]; decode: number[] };
}

const TOKEN = '0xc2132d05d31c914a87c6611c10748aeb04b58e8f';
/** Logs that also go through viem's full decoding, for the comparison figure and the agreement check. */
const COMPARED = 20_000;
const TOPIC = toEventSelector('Transfer(address,address,uint256)');

/** A deterministic pseudo-random 20-byte address (lowercase hex). */
function address(seed: string): string {
  return `0x${createHash('sha256').update(seed).digest('hex').slice(0, 40)}`;
}

/** eth_getLogs results as a node returns them: hex topics and data, one block per 100 logs. */
function rpcLogs(count: number, recipients: readonly string[]): RpcLog[] {
  return recipients.slice(0, count).map((to, i) => ({
    address: TOKEN as Hex,
    blockHash: pad(toHex(1_000_000 + Math.floor(i / 100)), { size: 32 }),
    blockNumber: toHex(1_000_000 + Math.floor(i / 100)),
    data: encodeAbiParameters([{ type: 'uint256' }], [BigInt(1_000_000 + (i % 9_000_000))]),
    logIndex: toHex(i % 100),
    transactionHash: pad(toHex(i + 1), { size: 32 }),
    transactionIndex: toHex(i % 100),
    removed: false,
    topics: [TOPIC, pad(address(`from ${i % 5000}`) as Hex, { size: 32 }), pad(to as Hex, { size: 32 })],
  }));
}

function perSecond(n: number, fn: () => void, iterations: number): number[] {
  const out: number[] = [];
  fn(); // warm-up (JIT)
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    fn();
    out.push(n / ((performance.now() - t0) / 1000));
  }
  return out;
}

export function matchBench(o: MatchOptions): MatchResult {
  const watchedList = Array.from({ length: o.watched }, (_, i) => address(`watched ${i}`));
  const set = new EvmWatchedSet();
  set.addAll(watchedList);
  // Recipients: hitRate of them watched, the rest anybody's; checksummed on the wire like any log.
  const recipients = Array.from({ length: o.logs }, (_, i) => (i % Math.round(1 / o.hitRate) === 0 ? watchedList[i % o.watched]! : address(`other ${i}`)));
  const raw = rpcLogs(o.logs, recipients);
  // What viem's getLogs returns: formatLog (bigint block numbers, numeric indexes), then the ABI
  // decoding. It costs ~100 times the matching, so it runs on the first COMPARED logs only (a rate
  // per log either way): 200,000 logs took ~16 s a pass on a slow machine.
  const compared = raw.slice(0, Math.min(o.logs, COMPARED));
  const decodeAll = () => parseEventLogs({ abi: [TRANSFER_EVENT], logs: compared.map((l) => formatLog(l)), strict: true }) as unknown as TransferLog[];
  const decoded = decodeAll();
  if (decoded.length !== compared.length || decoded[0]!.args.to !== getAddress(recipients[0]!)) throw new Error('decoded logs do not have the real shape');
  const filter = { network: 'POLYGON' as const, token: TOKEN, decimals: 6, watched: set };
  // The payments themselves, not only their number, must be what decoding every log gives.
  if (!isDeepStrictEqual(transfersFromRawLogs(compared, filter), toTransferObservations(decoded, filter))) throw new Error('matching on raw topics and on decoded logs disagree');
  let matched = 0;
  const ours = perSecond(o.logs, () => (matched = transfersFromRawLogs(raw, filter).length), o.iterations);
  const lower = recipients.map((r) => r.toLowerCase());
  const bare = new Set(watchedList);
  let hits = 0;
  const baseline = perSecond(
    o.logs,
    () => {
      hits = 0;
      for (let i = 0; i < lower.length; i++) if (bare.has(lower[i]!)) hits++;
    },
    o.iterations,
  );
  if (hits !== matched) throw new Error(`baseline matched ${hits}, the real path ${matched}`);
  const decode = perSecond(compared.length, () => toTransferObservations(decodeAll(), filter), Math.max(1, Math.floor(o.iterations / 2)));
  return { logsPerSecond: median(ours), baselinePerSecond: median(baseline), decodeAndMatchPerSecond: median(decode), matched, runs: { ours, baseline, decode } };
}
