import { encodeFunctionData, formatEther, formatUnits, getAddress, keccak256, parseEther, TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ValidationError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import { toBaseUnits } from '../amount';
import type { ChainSweeper, SweepBalances, SweepQuote, SweepTopUpRequest, SweepTransferRequest, SweepTx, SweepTxStatus } from '../sweeps';
import { ERC20_ABI } from './abi';
import type { EvmCodec } from './codec';
import { PayoutInsufficientGasError } from './errors';
import { currentFees, type FeeParams } from './fees';
import { walletNonces } from './nonces';
import { evmPayoutWallet } from './payout-wallet';

export interface SweepDeps {
  readonly network: NetworkCode;
  readonly gasCoin: string;
  readonly client: PublicClient;
  readonly codec: EvmCodec;
  readonly token: Hex;
  readonly decimals: number;
  readonly chainId: number;
  /** A receipt this deep is final (<CODE>_CONFIRMATIONS). */
  readonly confirmations: number;
}

/** A plain coin transfer costs exactly this much gas on every EVM chain we run. */
const TRANSFER_GAS = 21_000n;

/**
 * EVM sweeps (chains/sweeps.ts): the deposit key signs the ERC-20 `transfer`; its gas is topped up
 * beforehand from the hot wallet, exactly estimateGas × maxFeePerGas minus what the address holds
 * (nothing when it holds enough: dust left by an earlier sweep is used). The top-up takes its nonce
 * from the hot wallet's book shared with payouts (nonces.ts + the host's durable book), so a top-up
 * and a payout never share a nonce. The transfer's gas limit is the estimate itself (an ERC-20
 * transfer of a fixed amount from a fixed holder costs the same when mined) and its maxFeePerGas
 * never exceeds what the address holds per unit of gas, so it cannot be refused for funds; the
 * dust left is at most gas × (maxFeePerGas − the price paid), one estimate's slack.
 * ARBITRUM: the receipt's gasUsed already includes the L1 data fee (priced in L2 gas), and
 * estimateGas includes it too; on hardhat there is none.
 */
export class EvmSweeps implements ChainSweeper {
  readonly gasCoin: string;

  constructor(private readonly deps: SweepDeps) {
    this.gasCoin = deps.gasCoin;
  }

  hotAddress(): string {
    return this.deps.codec.hotWallet().address;
  }

  async balances(address: string): Promise<SweepBalances> {
    const owner = getAddress(address.toLowerCase());
    const [token, gas] = await Promise.all([
      this.deps.client.readContract({ address: this.deps.token, abi: ERC20_ABI, functionName: 'balanceOf', args: [owner] }),
      this.deps.client.getBalance({ address: owner }),
    ]);
    return { token: formatUnits(token, this.deps.decimals), gas: formatEther(gas) };
  }

  async quote(request: Omit<SweepTransferRequest, 'sweepId'>): Promise<SweepQuote> {
    const from = getAddress(request.from.toLowerCase());
    const gas = await this.estimate(from, request.to, request.amount);
    const fee = gas * maxFee(await currentFees(this.deps.client));
    const held = await this.deps.client.getBalance({ address: from });
    return { fee: formatEther(fee), topUp: formatEther(fee > held ? fee - held : 0n) };
  }

  async signTopUp(request: SweepTopUpRequest): Promise<SweepTx> {
    const { client, chainId } = this.deps;
    const value = parseEther(request.amount);
    if (value <= 0n) throw new ValidationError('invalid_amount', 'a top-up must be positive', 'amount');
    const account = privateKeyToAccount(`0x${this.deps.codec.hotWallet().privateKeyHex}`);
    const fees = await currentFees(client);
    const coins = await client.getBalance({ address: account.address });
    const needed = value + TRANSFER_GAS * maxFee(fees);
    if (coins < needed) throw new PayoutInsufficientGasError({ network: this.deps.network, wallet: account.address, symbol: this.gasCoin, balance: formatEther(coins), needed: formatEther(needed) });
    const wallet = evmPayoutWallet(chainId, account.address);
    const book = request.book;
    return walletNonces(chainId, account.address).assign(
      () => client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
      async (nonce) => {
        const to = getAddress(request.to.toLowerCase());
        const raw = await account.signTransaction({ ...feeFields(fees), chainId, to, value, gas: TRANSFER_GAS, nonce });
        return { txHash: keccak256(raw), raw, meta: { nonce, from: account.address.toLowerCase(), chainId, sweepId: request.sweepId, kind: 'topup' }, wallet, sequence: nonce };
      },
      book ? () => book.highestOpenSequence(wallet) : undefined,
    );
  }

  async signTransfer(request: SweepTransferRequest): Promise<SweepTx> {
    const { client, chainId, token } = this.deps;
    const key = this.deps.codec.depositKey(request.index);
    if (key.address.toLowerCase() !== request.from.toLowerCase()) throw new ValidationError('sweep_key_mismatch', `deposit index ${request.index} is not ${request.from}`, 'index');
    const account = privateKeyToAccount(`0x${key.privateKeyHex}`);
    const gas = await this.estimate(account.address, request.to, request.amount);
    const held = await client.getBalance({ address: account.address });
    const fees = affordable(await currentFees(client), held / gas);
    const nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
    const data = transferData(request.to, toBaseUnits(request.amount, this.deps.decimals));
    const raw = await account.signTransaction({ ...feeFields(fees), chainId, to: token, data, gas, nonce });
    return { txHash: keccak256(raw), raw, meta: { nonce, from: account.address.toLowerCase(), chainId, sweepId: request.sweepId, kind: 'transfer' } };
  }

  async broadcast(tx: SweepTx): Promise<void> {
    try {
      await this.deps.client.sendRawTransaction({ serializedTransaction: tx.raw as Hex });
    } catch (error) {
      // Already known or already mined is success: decided by the chain, not the node's wording.
      const known = await this.deps.client.getTransaction({ hash: tx.txHash as Hex }).catch((e: unknown) => notFound(e, TransactionNotFoundError));
      if (known === null) throw error;
    }
    if (tx.meta.kind === 'topup') walletNonces(this.deps.chainId, String(tx.meta.from)).sent(Number(tx.meta.nonce));
  }

  async status(tx: SweepTx): Promise<SweepTxStatus> {
    const { client } = this.deps;
    const receipt = await client.getTransactionReceipt({ hash: tx.txHash as Hex }).catch((e: unknown) => notFound(e, TransactionReceiptNotFoundError));
    if (receipt === null) {
      const known = await client.getTransaction({ hash: tx.txHash as Hex }).catch((e: unknown) => notFound(e, TransactionNotFoundError));
      return known === null ? { state: 'unknown' } : { state: 'pending' };
    }
    const blockHeight = Number(receipt.blockNumber);
    const confirmations = Math.max(1, Number(await client.getBlockNumber({ cacheTime: 0 })) - blockHeight + 1);
    const fee = formatEther(receipt.gasUsed * receipt.effectiveGasPrice);
    const final = confirmations >= this.deps.confirmations;
    return { state: receipt.status === 'reverted' ? 'reverted' : 'mined', blockHeight, confirmations, final, fee };
  }

  private async estimate(from: Hex, to: string, amount: string): Promise<bigint> {
    const data = transferData(to, toBaseUnits(amount, this.deps.decimals));
    return this.deps.client.estimateGas({ account: from, to: this.deps.token, data });
  }
}

function transferData(to: string, units: bigint): Hex {
  return encodeFunctionData({ abi: ERC20_ABI, functionName: 'transfer', args: [getAddress(to.toLowerCase()), units] });
}

function maxFee(fees: FeeParams): bigint {
  return fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice;
}

/** Today's fees, lowered to `perGas` when the address holds less than they could cost. */
function affordable(fees: FeeParams, perGas: bigint): FeeParams {
  if (fees.type === 'legacy') return { type: 'legacy', gasPrice: fees.gasPrice < perGas ? fees.gasPrice : perGas };
  const maxFeePerGas = fees.maxFeePerGas < perGas ? fees.maxFeePerGas : perGas;
  return { type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas < maxFeePerGas ? fees.maxPriorityFeePerGas : maxFeePerGas };
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
