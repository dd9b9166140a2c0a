import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hex, type PublicClient, type WalletClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { compileTestToken } from './compile';

/** hardhat's default funded accounts (mnemonic "test test ... junk"). */
export const HARDHAT_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
] as const satisfies readonly Hex[];

const chain = {
  id: 31337,
  name: 'hardhat',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
} as const;

/** Drives the hardhat node from the test side: deploy, mint, transfer, mine, snapshot. */
export class TestChain {
  readonly public: PublicClient;
  readonly funder: PrivateKeyAccount = privateKeyToAccount(HARDHAT_KEYS[0]);
  readonly other: PrivateKeyAccount = privateKeyToAccount(HARDHAT_KEYS[1]);
  private readonly wallets = new Map<Address, WalletClient>();
  private readonly token = compileTestToken();

  constructor(readonly url: string) {
    this.public = createPublicClient({ chain, transport: http(url, { retryCount: 0 }) });
  }

  rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    return this.public.request({ method: method as never, params: params as never }) as Promise<T>;
  }

  async head(): Promise<number> {
    return Number(await this.public.getBlockNumber({ cacheTime: 0 }));
  }

  async blockHash(height: number): Promise<Hex> {
    return (await this.public.getBlock({ blockNumber: BigInt(height) })).hash;
  }

  /** evm_mine per block: hardhat_mine's bulk blocks report a zero parentHash, which a follower rightly distrusts. */
  async mine(blocks = 1): Promise<void> {
    for (let i = 0; i < blocks; i++) await this.rpc('evm_mine');
  }

  snapshot(): Promise<Hex> {
    return this.rpc<Hex>('evm_snapshot');
  }

  async revert(id: Hex): Promise<void> {
    if (!(await this.rpc<boolean>('evm_revert', [id]))) throw new Error(`evm_revert ${id} failed`);
  }

  async setAutomine(on: boolean): Promise<void> {
    await this.rpc('evm_setAutomine', [on]);
  }

  async deployToken(decimals: number, symbol = 'USDT'): Promise<Address> {
    const hash = await this.wallet(this.funder).deployContract({ abi: this.token.abi, bytecode: this.token.bytecode, args: ['Tether USD', symbol, decimals], account: this.funder, chain });
    const receipt = await this.public.waitForTransactionReceipt({ hash });
    return receipt.contractAddress!;
  }

  mint(token: Address, to: string, units: bigint): Promise<Hex> {
    return this.write(this.funder, token, 'mint', [to, units]);
  }

  /** A token transfer from `from` (default: the funder). With automine on, it is mined at once. */
  transfer(token: Address, to: string, units: bigint, from: PrivateKeyAccount = this.funder, gas?: bigint): Promise<Hex> {
    return this.write(from, token, 'transfer', [to, units], gas);
  }

  multiTransfer(token: Address, to: string[], units: bigint[]): Promise<Hex> {
    return this.write(this.funder, token, 'multiTransfer', [to, units]);
  }

  async balanceOf(token: Address, owner: string): Promise<bigint> {
    return (await this.public.readContract({ address: token, abi: this.token.abi, functionName: 'balanceOf', args: [owner] })) as bigint;
  }

  async fundEth(to: string, ether = '10'): Promise<void> {
    const hash = await this.wallet(this.funder).sendTransaction({ to: to as Address, value: parseEther(ether), account: this.funder, chain });
    await this.public.waitForTransactionReceipt({ hash });
  }

  private async write(from: PrivateKeyAccount, token: Address, functionName: string, args: unknown[], gas?: bigint): Promise<Hex> {
    return this.wallet(from).writeContract({ address: token, abi: this.token.abi, functionName, args, account: from, chain, gas });
  }

  private wallet(account: PrivateKeyAccount): WalletClient {
    let w = this.wallets.get(account.address);
    if (!w) this.wallets.set(account.address, (w = createWalletClient({ account, chain, transport: http(this.url, { retryCount: 0 }) })));
    return w;
  }
}
