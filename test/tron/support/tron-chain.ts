import { TronWeb } from 'tronweb';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tronAddress } from '../../../src/chains/tron/codec';
import { startHardhatNode, type HardhatNode } from '../../evm/support/hardhat-node';
import { HARDHAT_KEYS, TestChain } from '../../evm/support/test-chain';
import { TronNodeServer } from './tron-node';

/** TRON slots are 3 s apart. */
const SLOT_SECONDS = 3;

/** The base58 TRON address of an EVM address (the same 20 bytes). */
export function tronOf(evm: string): string {
  return tronAddress(Buffer.from(evm.replace(/^0x/, ''), 'hex'));
}

/**
 * The test's side of the TRON harness: a hardhat node with a 6-decimal USDT and a look-alike, the
 * java-tron API server over it, and a buyer who pays through tronweb (built by the node's
 * triggersmartcontract, signed locally, broadcast): transactions wait in the pool until produce().
 */
export class TronTestChain {
  readonly buyerKey = HARDHAT_KEYS[1].slice(2);
  readonly buyer: string;
  private readonly tronWeb: TronWeb;

  private constructor(
    private readonly hardhat: HardhatNode,
    readonly evm: TestChain,
    readonly server: TronNodeServer,
    readonly usdtEvm: Address,
    readonly lookalikeEvm: Address,
  ) {
    this.buyer = tronOf(privateKeyToAccount(HARDHAT_KEYS[1]).address);
    this.tronWeb = new TronWeb({ fullHost: server.url, privateKey: this.buyerKey });
  }

  static async start(): Promise<TronTestChain> {
    const hardhat = await startHardhatNode({ throwOnTransactionFailures: false });
    const evm = new TestChain(hardhat.url);
    const usdt = await evm.deployToken(6);
    const lookalike = await evm.deployToken(6);
    const buyer = privateKeyToAccount(HARDHAT_KEYS[1]).address;
    await evm.mint(usdt, buyer, 1_000_000n * 10n ** 6n);
    await evm.mint(lookalike, buyer, 1_000_000n * 10n ** 6n);
    // From here on, blocks come only from produce(): a broadcast waits in the pool, as on TRON.
    await evm.setAutomine(false);
    const server = new TronNodeServer((method, params = []) => evm.rpc(method, params));
    await server.listen();
    return new TronTestChain(hardhat, evm, server, usdt, lookalike);
  }

  get url(): string {
    return this.server.url;
  }
  /** The hardhat node's JSON-RPC (an EVM network of the same daemon may run on it). */
  get evmUrl(): string {
    return this.evm.url;
  }
  get usdt(): string {
    return tronOf(this.usdtEvm);
  }
  get lookalike(): string {
    return tronOf(this.lookalikeEvm);
  }

  async stop(): Promise<void> {
    await this.server.close();
    await this.hardhat.stop();
  }

  async head(): Promise<number> {
    return this.evm.head();
  }

  /** `n` blocks, each 3 s of chain time after the last (or now, when later), with what waits in the pool. */
  async produce(n = 1): Promise<void> {
    for (let i = 0; i < n; i++) {
      const last = await this.evm.public.getBlock({ blockTag: 'latest' });
      const next = Math.max(Number(last.timestamp) + SLOT_SECONDS, Math.floor(Date.now() / 1000));
      await this.evm.rpc('evm_mine', [next]);
    }
  }

  /** A TRC20 transfer through tronweb (the node builds it, the buyer signs and broadcasts); mined at the next produce(). */
  async pay(to: string, units: bigint, token: string = this.usdt, fromKey: string = this.buyerKey): Promise<string> {
    const from = this.tronWeb.address.fromPrivateKey(fromKey) as string;
    const built = await this.tronWeb.transactionBuilder.triggerSmartContract(
      token,
      'transfer(address,uint256)',
      { feeLimit: 100_000_000 },
      [
        { type: 'address', value: to },
        { type: 'uint256', value: units.toString() },
      ],
      from,
    );
    const signed = await this.tronWeb.trx.sign(built.transaction, fromKey);
    const sent = await this.tronWeb.trx.sendRawTransaction(signed);
    if (!sent.result) throw new Error(`broadcast refused: ${JSON.stringify(sent)}`);
    return signed.txID;
  }

  /** A TRC10 transfer (TransferAssetContract) of a token named like USDT: no logs, never a payment. */
  async payTrc10(to: string, amount: number): Promise<string> {
    const from = this.tronWeb.address.fromPrivateKey(this.buyerKey) as string;
    const tx = await this.tronWeb.transactionBuilder.sendToken(to, amount, '1002000', from);
    const signed = await this.tronWeb.trx.sign(tx, this.buyerKey);
    const sent = await this.tronWeb.trx.sendRawTransaction(signed);
    if (!sent.result) throw new Error(`broadcast refused: ${JSON.stringify(sent)}`);
    return signed.txID;
  }

  /** USDT to `to` straight from the EVM side (setup: the hot wallet's float); mined at the next produce(). */
  async mintUsdt(to: string, units: bigint): Promise<void> {
    await this.evm.mint(this.usdtEvm, `0x${TronWeb.address.toHex(to).slice(2)}`, units);
  }

  async usdtBalance(owner: string): Promise<bigint> {
    return this.evm.balanceOf(this.usdtEvm, `0x${TronWeb.address.toHex(owner).slice(2)}`);
  }

  snapshot(): Promise<Hex> {
    return this.evm.snapshot();
  }

  revert(id: Hex): Promise<void> {
    return this.evm.revert(id);
  }

  /** TRX of an account (the harness's ledger), in TRX. */
  setTrx(address: string, trx: bigint): void {
    this.server.setTrx(TronWeb.address.toHex(address), trx * 1_000_000n);
  }
}
