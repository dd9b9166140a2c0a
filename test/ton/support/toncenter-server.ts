import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Address, beginCell, Cell, storeTransaction, type TupleItem } from '@ton/core';
import type { SandboxChain } from './sandbox-chain';

type Params = Record<string, unknown>;

/** A JSON-RPC error the way toncenter v2 answers one ({ ok: false, error, code }). */
class RpcFailure extends Error {
  constructor(
    message: string,
    readonly status = 500,
  ) {
    super(message);
  }
}

export interface ToncenterServer {
  readonly url: string;
  /** Method name -> number of calls (cost measurements). */
  readonly calls: Map<string, number>;
  /** Makes the next `n` calls of `method` fail with HTTP 500 (e.g. a master that does not answer). */
  failNext(method: string, n: number): void;
  /** Page size cap of getTransactions (toncenter caps at 100; tests lower it to page across downtime). */
  maxPage: number;
  /**
   * A non-archival node: transactions with an lt below this are pruned (getTransactions from one
   * answers an empty page, as a node without that history). 0n: archival (every transaction).
   */
  historyFromLt: bigint;
  close(): Promise<void>;
}

/**
 * toncenter v2 JSON-RPC over the sandbox: getMasterchainInfo, getAddressInformation, getTransactions,
 * runGetMethod, sendBoc, in toncenter's shapes, so an unchanged TonClient (its parsing included) is
 * what the adapter talks to. Transactions are returned as their real BOCs.
 */
export async function startToncenter(chain: SandboxChain): Promise<ToncenterServer> {
  const calls = new Map<string, number>();
  const failures = new Map<string, number>();
  const state = { maxPage: 100, historyFromLt: 0n };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      void (async () => {
        let id: unknown = null;
        try {
          const body = JSON.parse(raw) as { id?: unknown; method: string; params: Params };
          id = body.id ?? null;
          calls.set(body.method, (calls.get(body.method) ?? 0) + 1);
          const failing = failures.get(body.method) ?? 0;
          if (failing > 0) {
            failures.set(body.method, failing - 1);
            throw new RpcFailure('injected failure');
          }
          const result = await dispatch(chain, body.method, body.params ?? {}, state);
          reply(res, 200, { ok: true, result, id, jsonrpc: '2.0' });
        } catch (error) {
          const status = error instanceof RpcFailure ? error.status : 500;
          reply(res, status, { ok: false, error: (error as Error).message, code: status, id, jsonrpc: '2.0' });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/api/v2/jsonRPC`,
    calls,
    failNext: (method, n) => failures.set(method, n),
    get maxPage() {
      return state.maxPage;
    },
    set maxPage(v: number) {
      state.maxPage = v;
    },
    get historyFromLt() {
      return state.historyFromLt;
    },
    set historyFromLt(v: bigint) {
      state.historyFromLt = v;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function blockId(chain: SandboxChain) {
  return { '@type': 'ton.blockIdExt', workchain: -1, shard: '-9223372036854775808', seqno: chain.seqno, root_hash: '', file_hash: '' };
}

async function dispatch(chain: SandboxChain, method: string, params: Params, served: { maxPage: number; historyFromLt: bigint }): Promise<unknown> {
  switch (method) {
    case 'getMasterchainInfo':
      return { '@type': 'blocks.masterchainInfo', state_root_hash: '', last: blockId(chain), init: { ...blockId(chain), seqno: 0 } };
    case 'getAddressInformation':
      return addressInformation(chain, Address.parse(String(params.address)));
    case 'getTransactions':
      return transactions(chain, params, served.maxPage, served.historyFromLt);
    case 'runGetMethod':
      return runGetMethod(chain, params);
    case 'sendBoc':
      return sendBoc(chain, String(params.boc));
    default:
      throw new RpcFailure(`method ${method} not implemented by the harness`, 404);
  }
}

async function addressInformation(chain: SandboxChain, address: Address) {
  const contract = await chain.blockchain.getContract(address);
  const account = contract.accountState;
  const active = account?.type === 'active';
  const last = contract.lastTransactionLt;
  return {
    '@type': 'raw.fullAccountState',
    balance: contract.balance.toString(),
    code: active && account.state.code ? account.state.code.toBoc().toString('base64') : '',
    data: active && account.state.data ? account.state.data.toBoc().toString('base64') : '',
    last_transaction_id: {
      '@type': 'internal.transactionId',
      lt: last.toString(),
      hash: last === 0n ? 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' : Buffer.from(contract.lastTransactionHash.toString(16).padStart(64, '0'), 'hex').toString('base64'),
    },
    block_id: blockId(chain),
    frozen_hash: '',
    sync_utime: chain.now,
    state: active ? 'active' : account?.type === 'frozen' ? 'frozen' : 'uninitialized',
  };
}

/** Newest first from (lt, hash) inclusive (toncenter's order), at most `limit`, stopping above `to_lt`. */
async function transactions(chain: SandboxChain, params: Params, maxPage: number, historyFromLt: bigint) {
  const address = Address.parse(String(params.address));
  const limit = Math.min(Number(params.limit ?? 10), maxPage);
  const all = await chain.transactionsOf(address);
  let start = 0;
  if (params.lt !== undefined && params.hash !== undefined) {
    const hash = Buffer.from(String(params.hash), 'hex');
    start = all.findIndex((tx) => tx.lt === BigInt(String(params.lt)) && tx.hash().equals(hash));
    if (start < 0) throw new RpcFailure('LITE_SERVER_UNKNOWN: cannot locate transaction in block', 500);
  }
  const toLt = params.to_lt === undefined ? 0n : BigInt(String(params.to_lt));
  return (
    all
      .slice(start)
      .filter((tx) => tx.lt > toLt)
      .slice(0, limit)
      // Pruned history ends the page: the node has nothing older (from a pruned start: nothing).
      .filter((tx) => tx.lt >= historyFromLt)
      .map((tx) => ({
        '@type': 'raw.transaction',
        data: beginCell().store(storeTransaction(tx)).endCell().toBoc().toString('base64'),
        utime: tx.now,
        transaction_id: { '@type': 'internal.transactionId', lt: tx.lt.toString(), hash: tx.hash().toString('base64') },
        fee: '0',
        storage_fee: '0',
        other_fee: '0',
        out_msgs: [],
      }))
  );
}

async function runGetMethod(chain: SandboxChain, params: Params) {
  const address = Address.parse(String(params.address));
  const stack = ((params.stack as Array<[string, string]>) ?? []).map(toTupleItem);
  try {
    const result = await chain.blockchain.runGetMethod(address, String(params.method), stack);
    return { '@type': 'smc.runResult', gas_used: Number(result.gasUsed), exit_code: result.exitCode, stack: result.stack.map(fromTupleItem) };
  } catch (error) {
    // An account without code (or a method it lacks): toncenter answers with a non-zero exit code.
    return { '@type': 'smc.runResult', gas_used: 0, exit_code: -13, stack: [], error: (error as Error).message };
  }
}

function toTupleItem([type, value]: [string, string]): TupleItem {
  if (type === 'num') return { type: 'int', value: BigInt(value) };
  const cell = Cell.fromBase64(value);
  if (type === 'tvm.Slice') return { type: 'slice', cell };
  if (type === 'tvm.Cell') return { type: 'cell', cell };
  return { type: 'builder', cell };
}

function fromTupleItem(item: TupleItem): unknown {
  switch (item.type) {
    case 'int':
      return ['num', `${item.value < 0n ? '-' : ''}0x${(item.value < 0n ? -item.value : item.value).toString(16)}`];
    case 'cell':
    case 'slice':
    case 'builder':
      return [item.type, { bytes: item.cell.toBoc().toString('base64') }];
    case 'null':
      return ['null'];
    default:
      throw new RpcFailure(`stack item ${item.type} not supported by the harness`);
  }
}

/** Applies an external message; one the wallet refuses (bad seqno, expired) is an error, as on a liteserver. */
async function sendBoc(chain: SandboxChain, boc: string) {
  const cell = Cell.fromBase64(boc);
  if (chain.inclusion) {
    try {
      await chain.inclusion.accept(cell);
    } catch (error) {
      throw new RpcFailure((error as Error).message);
    }
    return { '@type': 'ok' };
  }
  try {
    await chain.blockchain.sendMessage(cell);
  } catch (error) {
    throw new RpcFailure(`LITE_SERVER_UNKNOWN: cannot apply external message to current state: ${(error as Error).message}`);
  }
  chain.seqno += 1;
  return { '@type': 'ok' };
}
