import { evmMatcher } from './watched-set';
import { toTransferObservations, type TransferLog } from './transfer-logs';

const TOKEN = '0xc2132d05d31c914a87c6611c10748aeb04b58e8f';
const WATCHED = '0x9858effd232b4033e47d90003d41ec34ecaeda94';
const watched = evmMatcher({ has: (a: string) => a === WATCHED, size: () => 1, values: () => [WATCHED] });
const filter = { network: 'POLYGON' as const, token: TOKEN, decimals: 6, watched };

function log(over: Partial<TransferLog> & { value?: bigint; to?: string }): TransferLog {
  const { value = 1_500_000n, to = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', ...rest } = over;
  return {
    address: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
    blockHash: '0xb1',
    blockNumber: 10n,
    data: '0x',
    logIndex: 4,
    transactionHash: '0xt1',
    transactionIndex: 0,
    removed: false,
    topics: [],
    eventName: 'Transfer',
    args: { from: '0x0000000000000000000000000000000000000001', to: to as `0x${string}`, value },
    ...rest,
  } as TransferLog;
}

describe('toTransferObservations', () => {
  it('turns a Transfer log to a watched address into a payment in token units', () => {
    expect(toTransferObservations([log({})], filter)).toEqual([
      {
        kind: 'transfer',
        network: 'POLYGON',
        txHash: '0xt1',
        eventIndex: 4,
        blockHeight: 10,
        blockHash: '0xb1',
        from: '0x0000000000000000000000000000000000000001',
        to: WATCHED,
        memo: null,
        amount: '1.5',
      },
    ]);
  });

  it('ignores removed logs, other contracts, zero values, pending logs and unwatched recipients', () => {
    const ignored = [
      log({ removed: true }),
      log({ address: '0xdac17f958d2ee523a2206206994597c13d831ec7' }),
      log({ value: 0n }),
      log({ blockHash: null as never, blockNumber: null as never }),
      log({ to: '0x000000000000000000000000000000000000dEaD' }),
    ];
    expect(toTransferObservations(ignored, filter)).toEqual([]);
  });
});
