import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TronWeb, Trx, utils } from 'tronweb';
import { LagRouter, type LaggingBackend } from './lagging-backend';
import { RateLimiter, type RateLimitPolicy } from './rate-limit';
import { blockId, tronBlock, tronInfo, txIdOf, type EvmBlock, type EvmReceipt, type TronTxJson } from './tron-shapes';

type Json = Record<string, unknown>;

/** An EVM JSON-RPC call to the hardhat node behind the harness. */
export type EvmRpc = <T>(method: string, params?: unknown[]) => Promise<T>;

const TRIGGER = 'TriggerSmartContract';
/** Gas sent with every contract call: enough for any token transfer; a revert is mined, not refused. */
const CALL_GAS = '0x7a120';

/**
 * A java-tron full node's HTTP API over a real hardhat node (CHAINS.md, TRON harness). TRON's VM runs
 * an ERC-20 exactly like the EVM and a TRON address's 20 bytes are the EVM address of the same key,
 * so hardhat executes; this server answers in java-tron's JSON shapes, builds transactions with
 * tronweb's protobuf helpers, and on broadcast checks what java-tron checks (txID = sha256(raw_data),
 * the signature recovers the owner, TAPOS, not expired against the head block's time, not a
 * duplicate) before executing it as the owner (hardhat_impersonateAccount). Blocks are produced by
 * the test (TronChain.produce); the solidified head is `solidLag` blocks below the head.
 * Not modelled: energy and bandwidth accounting, account activation.
 */
export class TronNodeServer {
  /** Every request's path, in order (calls per block). */
  readonly calls: string[] = [];
  /** When each request arrived (performance.now()), in the order of `calls`. */
  readonly times: number[] = [];
  solidLag = 19;
  /** The next `rateLimited` requests that carry a TRON-PRO-API-KEY header (TronGrid limits per key) answer HTTP 429 with this Retry-After (seconds). */
  rateLimited = 0;
  /** While set, broadcasts are refused with this java-tron code (e.g. SERVER_BUSY): nothing reaches the chain. */
  refuseBroadcasts: string | null = null;
  /** The API keys requests carried, in order (null: none). */
  readonly apiKeys: Array<string | null> = [];
  retryAfter: string | null = '0';
  private lagRouter: LagRouter | null = null;
  /** TronGrid's per-key budget, when set (setRateLimit). */
  limiter: RateLimiter | null = null;
  /**
   * A provider that lies consistently: these txIDs are left out of every block, their infos are
   * `{}` (a corrupt index, a censoring backend). Enough to fool an expiry proof; the chain still ran them.
   */
  readonly hidden = new Set<string>();
  /** The next accepted broadcast's txID joins `hidden`. */
  hideNextBroadcast = false;
  private readonly tronOfEvm = new Map<string, TronTxJson>();
  private readonly evmOfTron = new Map<string, string>();
  private readonly trx = new Map<string, bigint>();
  private server: http.Server | null = null;
  url = '';

  constructor(private readonly evm: EvmRpc) {}

  async listen(): Promise<void> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Enforces a per-key call budget (403 JSON above `rps`, a suspension); null: unlimited. */
  setRateLimit(policy: RateLimitPolicy | null): RateLimiter | null {
    this.limiter = policy === null ? null : new RateLimiter(policy);
    return this.limiter;
  }

  /** Puts a lagging backend behind the load balancer (null: every backend is up to date). */
  setLagging(backend: LaggingBackend | null): void {
    this.lagRouter = backend === null ? null : new LagRouter(backend);
  }

  /** Calls per path since the last reset. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const c of this.calls) out[c] = (out[c] ?? 0) + 1;
    return out;
  }

  /** TRX (in sun) of an account, by its 41-prefixed hex: a ledger of the harness's own (not hardhat's ETH). */
  setTrx(hex41: string, sun: bigint): void {
    this.trx.set(hex41.toLowerCase(), sun);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '/').replace(/^\/+/, '').split('?')[0]!;
    this.calls.push(path);
    this.times.push(arrived);
    const key = req.headers['tron-pro-api-key'];
    this.apiKeys.push(typeof key === 'string' ? key : null);
    if (this.rateLimited > 0 && typeof key === 'string') {
      this.rateLimited -= 1;
      res.writeHead(429, { 'content-type': 'application/json', ...(this.retryAfter !== null ? { 'retry-after': this.retryAfter } : {}) });
      res.end(JSON.stringify({ Error: 'rate limited' }));
      return;
    }
    const refusal = this.limiter?.admit(typeof key === 'string' ? key : null) ?? null;
    if (refusal !== null) {
      res.writeHead(refusal.status, { 'content-type': 'application/json' });
      res.end(refusal.body);
      return;
    }
    try {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (text ? JSON.parse(text) : {}) as Json;
      const answer = await this.route(path, body, this.lagRouter?.behind(path) ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    } catch (error) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Error: error instanceof Error ? error.message : String(error) }));
    }
  }

  /** `behind`: the answering backend's head is that many blocks below the real one (a lagging backend). */
  private async route(path: string, body: Json, behind: number): Promise<unknown> {
    const top = behind === 0 ? null : Math.max(0, (await this.head()) - behind);
    const atMost = async (num: number, solid: boolean): Promise<boolean> => num <= (top ?? (await this.head())) - (solid ? this.solidLag : 0);
    switch (path) {
      case 'wallet/getnowblock':
        return this.blockJson(top);
      case 'walletsolidity/getnowblock':
        return this.head().then((h) => this.blockJson(Math.max(0, (top ?? h) - this.solidLag)));
      case 'wallet/getblock':
        return this.blockJson(top, false);
      case 'wallet/getblockbynum':
        return (await atMost(Number(body.num), false)) ? this.blockJson(Number(body.num)) : {};
      case 'walletsolidity/getblockbynum':
        return (await atMost(Number(body.num), true)) ? this.blockJson(Number(body.num)) : {};
      case 'wallet/getblockbylimitnext':
      case 'walletsolidity/getblockbylimitnext':
        return this.blockRange(Number(body.startNum), Number(body.endNum), (n) => atMost(n, path.startsWith('walletsolidity')));
      case 'wallet/gettransactioninfobyblocknum':
        return (await atMost(Number(body.num), false)) ? this.infosOfBlock(Number(body.num)) : [];
      case 'wallet/gettransactioninfobyid':
        return this.infoById(String(body.value), false, top);
      case 'walletsolidity/gettransactioninfobyid':
        return this.infoById(String(body.value), true, top);
      case 'wallet/getcontract':
        return this.contract(String(body.value));
      case 'wallet/getaccount':
        return Promise.resolve(this.account(String(body.address)));
      case 'wallet/getaccountresource':
        return Promise.resolve({ freeNetLimit: 600 });
      case 'wallet/getchainparameters':
        return Promise.resolve({
          chainParameter: [
            { key: 'getTransactionFee', value: 1000 },
            { key: 'getEnergyFee', value: 100 },
            { key: 'getMaxFeeLimit', value: 15000000000 },
          ],
        });
      case 'wallet/triggerconstantcontract':
        return this.constant(body);
      case 'wallet/triggersmartcontract':
        return this.buildTrigger(body);
      case 'wallet/broadcasttransaction':
        return this.broadcast(body as unknown as TronTxJson);
      default:
        return Promise.resolve({ Error: `harness: ${path} not served` });
    }
  }

  async head(): Promise<number> {
    return Number(await this.evm<string>('eth_blockNumber'));
  }

  private async evmBlock(height: number | null): Promise<EvmBlock | null> {
    return this.evm<EvmBlock | null>('eth_getBlockByNumber', [height === null ? 'latest' : `0x${height.toString(16)}`, false]);
  }

  private async receipts(block: EvmBlock): Promise<Map<string, EvmReceipt>> {
    const all = await Promise.all(block.transactions.map((h) => this.evm<EvmReceipt>('eth_getTransactionReceipt', [h])));
    return new Map(all.map((r) => [r.transactionHash, r]));
  }

  private async blockJson(height: number | null, detail = true): Promise<Json> {
    const block = this.visible(await this.evmBlock(height));
    if (block === null) return {};
    const receipts = detail ? await this.receipts(block) : new Map<string, EvmReceipt>();
    const txs = detail ? await Promise.all(block.transactions.map((h) => this.tronTx(h))) : [];
    return tronBlock(block, txs, receipts, detail);
  }

  /** The TRON transaction of an EVM one: the broadcast JSON, or a stand-in for what the test sent to hardhat directly. */
  private async tronTx(evmHash: string): Promise<TronTxJson> {
    const known = this.tronOfEvm.get(evmHash);
    if (known) return known;
    const tx = await this.evm<{ from: string; to: string | null; input: string }>('eth_getTransactionByHash', [evmHash]);
    const value = { owner_address: `41${tx.from.slice(2)}`, contract_address: `41${(tx.to ?? `0x${'0'.repeat(40)}`).slice(2)}`, data: tx.input.slice(2) };
    return {
      txID: evmHash.slice(2),
      raw_data: {
        contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${TRIGGER}` }, type: TRIGGER }],
        ref_block_bytes: '0000',
        ref_block_hash: '0'.repeat(16),
        expiration: 0,
        timestamp: 0,
      },
      raw_data_hex: '',
      signature: [],
    };
  }

  /** getblockbylimitnext: blocks [start, end) up to the answering node's head; java-tron allows at most 100. */
  private async blockRange(start: number, end: number, served: (n: number) => Promise<boolean>): Promise<Json> {
    if (!(end > start) || end - start > 100) return { Error: 'class java.lang.Exception : startNum must be smaller than endNum, and endNum - startNum must not exceed 100' };
    const blocks: Json[] = [];
    for (let n = start; n < end && (await served(n)); n++) {
      const block = await this.blockJson(n);
      if (Object.keys(block).length === 0) break;
      blocks.push(block);
    }
    return blocks.length === 0 ? {} : { block: blocks };
  }

  /** The block without the hidden transactions. */
  private visible(block: EvmBlock | null): EvmBlock | null {
    if (block === null || this.hidden.size === 0) return block;
    return { ...block, transactions: block.transactions.filter((h) => !this.hidden.has(this.tronOfEvm.get(h)?.txID ?? '')) };
  }

  private async infosOfBlock(height: number): Promise<unknown[]> {
    const block = this.visible(await this.evmBlock(height));
    if (block === null) return [];
    const receipts = await this.receipts(block);
    return Promise.all(
      block.transactions.map(async (h) => {
        const tx = await this.tronTx(h);
        return tronInfo(tx.txID, receipts.get(h)!, Number(block.timestamp) * 1000, tx.raw_data.contract[0]!.type === TRIGGER);
      }),
    );
  }

  private async infoById(txID: string, solid: boolean, top: number | null): Promise<Json> {
    if (this.hidden.has(txID)) return {};
    const evmHash = this.evmOfTron.get(txID) ?? `0x${txID}`;
    const receipt = await this.evm<EvmReceipt | null>('eth_getTransactionReceipt', [evmHash]);
    if (receipt === null) return {};
    if (Number(receipt.blockNumber) > (top ?? (await this.head())) - (solid ? this.solidLag : 0)) return {};
    const block = (await this.evmBlock(Number(receipt.blockNumber)))!;
    const tx = await this.tronTx(evmHash);
    return tronInfo(tx.txID, receipt, Number(block.timestamp) * 1000, tx.raw_data.contract[0]!.type === TRIGGER);
  }

  private async contract(hex41: string): Promise<Json> {
    const code = await this.evm<string>('eth_getCode', [`0x${hex41.slice(2)}`, 'latest']);
    if (code === '0x') return {};
    return { origin_address: hex41, contract_address: hex41, bytecode: code.slice(2), name: 'TetherToken', consume_user_resource_percent: 30, origin_energy_limit: 10000000 };
  }

  private account(hex41: string): Json {
    const sun = this.trx.get(hex41.toLowerCase());
    if (sun === undefined) return {};
    return { address: hex41.toLowerCase(), balance: Number(sun), create_time: 1_600_000_000_000, net_window_size: 28800, account_resource: {} };
  }

  private async constant(body: Json): Promise<Json> {
    const selector = String(body.function_selector);
    const data = `0x${utils.ethersUtils.id(selector).slice(2, 10)}${String(body.parameter ?? '')}`;
    const call = { from: `0x${String(body.owner_address).slice(2)}`, to: `0x${String(body.contract_address).slice(2)}`, data };
    try {
      const result = await this.evm<string>('eth_call', [call, 'latest']);
      const gas = Number(await this.evm<string>('eth_estimateGas', [call]).catch(() => '0x5208'));
      return { result: { result: true }, energy_used: Math.max(0, gas - 21000), constant_result: [result.slice(2)], transaction: { ret: [{}], visible: false, txID: '0'.repeat(64) } };
    } catch {
      return {
        result: { code: 'CONTRACT_EXE_ERROR', message: Buffer.from('REVERT opcode executed').toString('hex') },
        energy_used: 0,
        constant_result: [''],
        transaction: { ret: [{ ret: 'FAILED' }], visible: false, txID: '0'.repeat(64) },
      };
    }
  }

  /** wallet/triggersmartcontract: java-tron builds the transaction (ref block = head, expiration = head time + 60 s). */
  private async buildTrigger(body: Json): Promise<Json> {
    const head = (await this.evmBlock(null))!;
    const height = Number(head.number);
    const selector = utils.ethersUtils.id(String(body.function_selector)).slice(2, 10);
    const value: Record<string, unknown> = { data: selector + String(body.parameter ?? ''), owner_address: body.owner_address, contract_address: body.contract_address };
    if (body.call_value) value.call_value = body.call_value;
    const raw_data = {
      contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${TRIGGER}` }, type: TRIGGER }],
      ref_block_bytes: height.toString(16).padStart(4, '0').slice(-4),
      ref_block_hash: blockId(height, head.hash).slice(16, 32),
      expiration: Number(head.timestamp) * 1000 + 60_000,
      fee_limit: body.fee_limit,
      timestamp: Date.now(),
    };
    const { txID, rawDataHex } = txIdOf({ raw_data } as never);
    return { result: { result: true }, transaction: { visible: false, txID, raw_data, raw_data_hex: rawDataHex } };
  }

  private async broadcast(tx: TronTxJson): Promise<Json> {
    const refuse = (code: string, message: string): Json => ({ code, txid: tx.txID, message: Buffer.from(message).toString('hex') });
    if (this.refuseBroadcasts !== null) return refuse(this.refuseBroadcasts, 'refused by the test');
    let computed: string;
    try {
      computed = txIdOf(tx).txID;
    } catch (e) {
      return refuse('OTHER_ERROR', `bad transaction: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (computed !== tx.txID) return refuse('SIGERROR', 'txID is not sha256(raw_data)');
    const contract = tx.raw_data.contract[0]!;
    const owner = String(contract.parameter.value.owner_address).toLowerCase();
    let signer: string;
    try {
      signer = TronWeb.address.toHex(Trx.ecRecover(tx as never) as string).toLowerCase();
    } catch {
      return refuse('SIGERROR', 'signature does not recover');
    }
    if (signer !== owner) return refuse('SIGERROR', 'signature is not the owner address');
    const head = (await this.evmBlock(null))!;
    if (!(await this.taposOk(tx, Number(head.number)))) return refuse('TAPOS_ERROR', 'Tapos check error');
    if (tx.raw_data.expiration <= Number(head.timestamp) * 1000) return refuse('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
    // java-tron: at most 24 h (MAXIMUM_TIME_UNTIL_EXPIRATION) after the head block.
    if (tx.raw_data.expiration > Number(head.timestamp) * 1000 + 86_400_000) return refuse('TRANSACTION_EXPIRATION_ERROR', 'expiration time too long');
    const known = this.evmOfTron.get(tx.txID);
    if (known !== undefined && (await this.evm<unknown>('eth_getTransactionByHash', [known])) !== null) return refuse('DUP_TRANSACTION_ERROR', 'Dup transaction');
    const from = `0x${owner.slice(2)}`;
    await this.evm('hardhat_impersonateAccount', [from]);
    await this.evm('hardhat_setBalance', [from, '0x56bc75e2d63100000']);
    const send =
      contract.type === TRIGGER
        ? { from, to: `0x${String(contract.parameter.value.contract_address).slice(2)}`, data: `0x${String(contract.parameter.value.data ?? '')}`, gas: CALL_GAS, value: '0x0' }
        : { from, to: from, value: '0x0', gas: '0x5208' }; // TRC10 / TRX transfers: a block entry without logs
    const evmHash = await this.evm<string>('eth_sendTransaction', [send]);
    this.tronOfEvm.set(evmHash, tx);
    this.evmOfTron.set(tx.txID, evmHash);
    if (this.hideNextBroadcast) this.hidden.add(tx.txID);
    this.hideNextBroadcast = false;
    return { result: true, txid: tx.txID };
  }

  /** java-tron's TAPOS: the block whose number ends in ref_block_bytes (the latest such at or below the head) has ref_block_hash. */
  private async taposOk(tx: TronTxJson, head: number): Promise<boolean> {
    const low = Number.parseInt(tx.raw_data.ref_block_bytes, 16);
    let n = (head & ~0xffff) | low;
    if (n > head) n -= 0x10000;
    if (n < 0) return false;
    const block = await this.evmBlock(n);
    return block !== null && blockId(n, block.hash).slice(16, 32) === tx.raw_data.ref_block_hash;
  }
}
