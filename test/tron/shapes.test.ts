import blockFixture from './support/fixtures/getblockbynum.json';
import infosFixture from './support/fixtures/gettransactioninfobyblocknum.json';
import { tronAddress } from '../../src/chains/tron/codec';
import { transfersOfBlock } from '../../src/chains/tron/block-transfers';
import { parseBlock } from '../../src/chains/tron/parse-block';
import { TronWatchedSet } from '../../src/chains/tron/watched-set';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(60_000);

/** The shape of a JSON value: keys and value types, recursively (arrays by their first element). */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? [] : [shape(v[0])];
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, shape(x)]),
    );
  return typeof v;
}

const HEX = (bytes: number) => new RegExp(`^[0-9a-f]{${bytes * 2}}$`);
const post = async (url: string, path: string, body: unknown): Promise<unknown> => (await fetch(`${url}/${path}`, { method: 'POST', body: JSON.stringify(body) })).json();

describe('the harness answers in the shapes of recorded mainnet payloads', () => {
  let chain: TronTestChain;
  beforeAll(async () => {
    chain = await TronTestChain.start();
  }, 60_000);
  afterAll(async () => chain?.stop());

  it('getblockbynum, getnowblock and gettransactioninfobyblocknum of a block with a USDT transfer: the fixtures keys, types and hex forms', async () => {
    const payee = tronAddress(Buffer.from('4f6b2a1e9c3d8b7a6f5e4d3c2b1a091827364556', 'hex'));
    await chain.pay(payee, 5_000_000n);
    await chain.produce(1);
    const num = await chain.head();
    const block = (await post(chain.url, 'wallet/getblockbynum', { num })) as typeof blockFixture;
    const infos = (await post(chain.url, 'wallet/gettransactioninfobyblocknum', { num })) as typeof infosFixture;
    expect(shape(block)).toEqual(shape(blockFixture));
    expect(shape(infos)).toEqual(shape(infosFixture));
    expect(shape(await post(chain.url, 'wallet/getnowblock', {}))).toEqual(shape(blockFixture));
    for (const b of [block, blockFixture]) {
      expect(b.blockID).toMatch(HEX(32));
      expect(b.blockID.slice(0, 16)).toBe(b.block_header.raw_data.number.toString(16).padStart(16, '0'));
      expect(b.block_header.raw_data.parentHash).toMatch(HEX(32));
      expect(b.block_header.raw_data.witness_address).toMatch(/^41[0-9a-f]{40}$/);
      expect(b.transactions[0]!.raw_data.contract[0]!.parameter.value.contract_address).toMatch(/^41[0-9a-f]{40}$/);
    }
    for (const i of [infos[0]!, infosFixture[0]!]) {
      expect(i.log[0]!.address).toMatch(HEX(20));
      i.log[0]!.topics.forEach((t) => expect(t).toMatch(HEX(32)));
      expect(i.log[0]!.data).toMatch(HEX(32));
      expect(i.contract_address).toMatch(/^41[0-9a-f]{40}$/);
    }
    // Above the head: an empty object, as java-tron answers.
    expect(await post(chain.url, 'wallet/getblockbynum', { num: num + 100 })).toEqual({});
  });

  it('the adapter reads the mainnet fixtures: header, blockID, and the USDT transfer of 5 to a watched address', () => {
    const parsed = parseBlock(blockFixture)!;
    expect(parsed.header).toEqual({ height: 64401906, hash: blockFixture.blockID, parentHash: blockFixture.block_header.raw_data.parentHash, timestamp: new Date(1724300001000) });
    expect(parsed.txIDs).toEqual([infosFixture[0]!.id]);
    const watched = new TronWatchedSet();
    const payee = tronAddress(Buffer.from('4f6b2a1e9c3d8b7a6f5e4d3c2b1a091827364556', 'hex'));
    watched.addAll([payee]);
    const transfers = transfersOfBlock(
      infosFixture,
      { height: parsed.header.height, hash: parsed.header.hash },
      { network: 'TRC20', tokenAccountHex: 'a614f803b6fd780986a42c78ec9c7f77e6ded13c', decimals: 6, watched },
    );
    expect(transfers).toEqual([
      {
        kind: 'transfer',
        network: 'TRC20',
        txHash: infosFixture[0]!.id,
        eventIndex: 0,
        blockHeight: 64401906,
        blockHash: blockFixture.blockID,
        from: tronAddress(Buffer.from('12e3d5a9c7b6f4e2d1c0b9a8f7e6d5c4b3a29180', 'hex')),
        to: payee,
        memo: null,
        amount: '5',
      },
    ]);
    // Another token's log, or a failed receipt: nothing.
    const other = transfersOfBlock(infosFixture, { height: 1, hash: 'x' }, { network: 'TRC20', tokenAccountHex: '00'.repeat(20), decimals: 6, watched });
    const failed = transfersOfBlock(
      [{ ...infosFixture[0]!, receipt: { ...infosFixture[0]!.receipt, result: 'REVERT' } }],
      { height: 1, hash: 'x' },
      { network: 'TRC20', tokenAccountHex: 'a614f803b6fd780986a42c78ec9c7f77e6ded13c', decimals: 6, watched },
    );
    expect([other, failed]).toEqual([[], []]);
  });
});
