import {
  BaseError,
  encodeFunctionData,
  formatEther,
  formatUnits,
  getAddress,
  keccak256,
  parseTransaction,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { ValidationError } from '../../domain/errors';
import { toBaseUnits } from '../amount';
import type { NetworkCode } from '../../domain/networks';
import type { AddressCodec } from '../codec';
import type { PayoutFunds, PayoutFundsRequest, PayoutRequest, PayoutStatus, SignedPayout } from '../types';
import { evmPayoutFunds, TRANSIENT } from './payout-funds';
import { ERC20_ABI } from './abi';
import { PayoutBroadcastError, PayoutInsufficientGasError, PayoutInsufficientTokenError, PayoutNonceConsumedError, PayoutRejectedError } from './errors';
import { currentFees, maxFeePerGas, replacementFees, type FeeParams } from './fees';
import { walletNonces } from './nonces';
import { evmPayoutWallet } from './payout-wallet';

export interface PayoutDeps {
  readonly network: NetworkCode;
  /** The gas coin's symbol (EVM_GAS_COIN), for the operator's messages. */
  readonly gasCoin: string;
  readonly client: PublicClient;
  readonly codec: AddressCodec;
  readonly token: Hex;
  readonly decimals: number;
  readonly chainId: number;
  readonly gasHeadroomPercent: number;
}

/**
 * ERC-20 payouts from the hot wallet: the EVM side of the payout contract (chains/types.ts). A nonce
 * orders them; a stuck one is bumped (same nonce, higher fee), never expires, so status() never says
 * `expired` and the host never signs a payout twice. meta: { nonce, from, chainId, payoutId, replaces }
 * where `replaces` lists (comma-separated) the hashes of earlier versions of the same payout, i.e.
 * transactions with the same nonce replaced by a fee bump: any one of them may be the one mined.
 * SignedPayout.wallet is evmPayoutWallet(chainId, from) and .sequence the nonce: the host's payout
 * book then keeps a nonce reserved while its payout is stored signed and open, across restarts.
 */
export class EvmPayouts {
  private account: PrivateKeyAccount | undefined;

  constructor(private readonly deps: PayoutDeps) {}

  async sign(request: PayoutRequest): Promise<SignedPayout> {
    const { client, codec, token, chainId } = this.deps;
    if (!codec.isValidAddress(request.to)) throw new ValidationError('invalid_address', `not an EVM address: ${request.to}`, 'to');
    const units = toBaseUnits(request.amount, this.deps.decimals);
    if (units <= 0n) throw new ValidationError('invalid_amount', 'payout amount must be positive', 'amount');
    const account = this.hotAccount();
    const data = encodeFunctionData({ abi: ERC20_ABI, functionName: 'transfer', args: [getAddress(request.to.toLowerCase()), units] });
    const gas = await this.estimateGas(request.id, account.address, data, units);
    const fees = await currentFees(client);
    await this.assertGasMoney(account.address, gas * maxFeePerGas(fees));
    const wallet = evmPayoutWallet(chainId, account.address);
    const book = request.book;
    return walletNonces(chainId, account.address).assign(
      () => client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
      async (nonce) => {
        const raw = await account.signTransaction({ ...feeFields(fees), chainId, to: token, data, gas, nonce });
        return { txHash: keccak256(raw), raw, meta: { nonce, from: account.address.toLowerCase(), chainId, payoutId: request.id, replaces: '' }, wallet, sequence: nonce };
      },
      book ? () => book.highestOpenSequence(wallet) : undefined,
    );
  }

  /** ChainAdapter.payoutFunds: whether the hot wallet can pay this payout (payout-funds.ts). */
  funds(request: PayoutFundsRequest): Promise<PayoutFunds> {
    return evmPayoutFunds(this.deps, this.hotAccount().address, request);
  }

  /** Sends the persisted raw transaction; already known or already mined (any version) is success. */
  async broadcast(payout: SignedPayout): Promise<void> {
    const nonce = Number(payout.meta.nonce);
    const nonces = walletNonces(this.deps.chainId, String(payout.meta.from));
    try {
      await this.deps.client.sendRawTransaction({ serializedTransaction: payout.raw as Hex });
    } catch (error) {
      // Decided by chain state, not by the node's wording of "already known" / "nonce too low".
      if (!(await this.anyKnown(versions(payout)))) {
        const used = await this.deps.client.getTransactionCount({ address: String(payout.meta.from) as Hex, blockTag: 'latest' });
        if (used > nonce) throw new PayoutNonceConsumedError(payout.txHash, nonce);
        throw new PayoutBroadcastError(payout.txHash, error, await this.gasShortfall(payout).catch(() => undefined));
      }
    }
    nonces.sent(nonce);
  }

  async status(payout: SignedPayout): Promise<PayoutStatus> {
    const { client } = this.deps;
    for (const hash of versions(payout)) {
      const receipt = await client.getTransactionReceipt({ hash }).catch((e: unknown) => notFound(e, TransactionReceiptNotFoundError));
      if (receipt === null) continue;
      const blockHeight = Number(receipt.blockNumber);
      const txHash = hash === payout.txHash ? {} : { txHash: hash };
      if (receipt.status === 'reverted') return { state: 'reverted', blockHeight, ...txHash };
      const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
      return { state: 'mined', blockHeight, confirmations: Math.max(1, head - blockHeight + 1), ...txHash };
    }
    return (await this.anyKnown(versions(payout))) ? { state: 'pending' } : { state: 'unknown' };
  }

  /** The same nonce, to, data and gas with fees >= +12.5% (and at least today's suggestion). */
  async bump(payout: SignedPayout): Promise<SignedPayout> {
    const tx = parseTransaction(payout.raw as Hex);
    if (tx.nonce === undefined || tx.gas === undefined || tx.to == null || tx.chainId === undefined) throw new ValidationError('payout_invalid', 'not a signed EVM payout', 'raw');
    const stuck: FeeParams = tx.type === 'eip1559' ? { type: 'eip1559', maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas! } : { type: 'legacy', gasPrice: tx.gasPrice! };
    const fees = replacementFees(stuck, await currentFees(this.deps.client));
    const raw = await this.hotAccount().signTransaction({ ...feeFields(fees), chainId: tx.chainId, to: tx.to, data: tx.data, gas: tx.gas, nonce: tx.nonce });
    const wallet = evmPayoutWallet(tx.chainId, String(payout.meta.from));
    return { txHash: keccak256(raw), raw, meta: { ...payout.meta, replaces: versions(payout).join(',') }, wallet, sequence: tx.nonce };
  }

  private async anyKnown(hashes: readonly Hex[]): Promise<boolean> {
    for (const hash of hashes) {
      const tx = await this.deps.client.getTransaction({ hash }).catch((e: unknown) => notFound(e, TransactionNotFoundError));
      if (tx !== null) return true;
    }
    return false;
  }

  private async estimateGas(payoutId: string, from: Hex, data: Hex, units: bigint): Promise<bigint> {
    try {
      const estimate = await this.deps.client.estimateGas({ account: from, to: this.deps.token, data });
      return (estimate * BigInt(100 + this.deps.gasHeadroomPercent)) / 100n;
    } catch (error) {
      // The node answered that the call fails (revert, no tokens, no gas money): refused. Node
      // unreachable or busy: rethrown as is, the caller retries. Decided by error class.
      const transient = !(error instanceof BaseError) || error.walk((e) => TRANSIENT.some((cls) => e instanceof cls));
      if (transient) throw error;
      // Why, from the chain state rather than the node's wording: the tokens, then the gas coin.
      const tokens = await this.tokenBalance(from);
      if (tokens < units)
        throw new PayoutInsufficientTokenError({ ...this.wallet(from), symbol: 'USDT', balance: formatUnits(tokens, this.deps.decimals), needed: formatUnits(units, this.deps.decimals) });
      const coins = await this.deps.client.getBalance({ address: from });
      if (coins === 0n) throw new PayoutInsufficientGasError({ ...this.wallet(from), symbol: this.deps.gasCoin, balance: '0', needed: null });
      throw new PayoutRejectedError(payoutId, error);
    }
  }

  /** Refuses to sign a payout whose gas (at most `cost` wei) the hot wallet cannot pay: the node would refuse it anyway. */
  private async assertGasMoney(from: Hex, cost: bigint): Promise<void> {
    const coins = await this.deps.client.getBalance({ address: from });
    if (coins < cost) throw new PayoutInsufficientGasError({ ...this.wallet(from), symbol: this.deps.gasCoin, balance: formatEther(coins), needed: formatEther(cost) });
  }

  /** Why a signed payout was refused, when the chain state explains it: the hot wallet cannot pay its gas. */
  private async gasShortfall(payout: SignedPayout): Promise<PayoutInsufficientGasError | undefined> {
    const tx = parseTransaction(payout.raw as Hex);
    const price = tx.maxFeePerGas ?? tx.gasPrice;
    if (tx.gas === undefined || price === undefined) return undefined;
    const from = String(payout.meta.from) as Hex;
    const cost = tx.gas * price + (tx.value ?? 0n);
    const coins = await this.deps.client.getBalance({ address: from });
    return coins < cost ? new PayoutInsufficientGasError({ ...this.wallet(from), symbol: this.deps.gasCoin, balance: formatEther(coins), needed: formatEther(cost) }) : undefined;
  }

  private tokenBalance(owner: Hex): Promise<bigint> {
    return this.deps.client.readContract({ address: this.deps.token, abi: ERC20_ABI, functionName: 'balanceOf', args: [owner] });
  }

  private wallet(address: Hex): { network: NetworkCode; wallet: string } {
    return { network: this.deps.network, wallet: getAddress(address) };
  }

  private hotAccount(): PrivateKeyAccount {
    this.account ??= privateKeyToAccount(`0x${this.deps.codec.hotWallet().privateKeyHex}`);
    return this.account;
  }
}

/** This payout's transaction and every earlier version it replaced. */
function versions(payout: SignedPayout): Hex[] {
  const earlier = String(payout.meta.replaces ?? '')
    .split(',')
    .filter((h) => h.length > 0);
  return [payout.txHash, ...earlier] as Hex[];
}

function feeFields(fees: FeeParams) {
  return fees.type === 'eip1559'
    ? { type: 'eip1559' as const, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
    : { type: 'legacy' as const, gasPrice: fees.gasPrice };
}

function notFound(error: unknown, cls: new (...args: never[]) => Error): null {
  if (error instanceof cls) return null;
  throw error;
}
