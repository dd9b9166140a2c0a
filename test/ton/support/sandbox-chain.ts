import { Blockchain, type BlockchainTransaction, createShardAccount, internal, type SandboxContract, type TreasuryContract } from '@ton/sandbox';
import { Inclusion, type InclusionOptions } from './inclusion';
import { JettonMinter } from '@ton-community/assets-sdk/dist/jetton/JettonMinter';
import { JettonWallet } from '@ton-community/assets-sdk/dist/jetton/JettonWallet';
import { Address, beginCell, type Cell, toNano } from '@ton/core';
import { onchainContent } from './jetton-content';

/** TEP-74 op codes the harness builds messages with. */
export const OP = { transfer: 0x0f8a7ea5, internalTransfer: 0x178d4519, transferNotification: 0x7362d09c, encryptedComment: 0x2167da4b } as const;

export interface PayOptions {
  /** Owner (wallet) address receiving the jettons. */
  readonly to: Address;
  /** Base units (6 decimals). */
  readonly amount: bigint;
  readonly memo?: string | null;
  /** Default 1 nanoton ... 0 means no transfer_notification is sent at all. */
  readonly forwardTon?: bigint;
  /** Forward payload stored in a ref instead of inline. */
  readonly payloadInRef?: boolean;
  /** An encrypted comment (op 0x2167da4b) instead of a text comment. */
  readonly encrypted?: boolean;
  /** Pay with the look-alike jetton (another master). */
  readonly fake?: boolean;
  /** Memo long enough to need a continuation cell (snake string). */
  readonly payer?: SandboxContract<TreasuryContract>;
}

/**
 * The standard jetton minter and wallet (their compiled code from @ton-community/assets-sdk) on
 * @ton/sandbox: a real USDT-like jetton and a look-alike one. `seqno` counts "masterchain blocks":
 * every state change of the sandbox is one.
 */
export class SandboxChain {
  seqno = 1;
  /** Real inclusion (held externals, committed-seqno check, one hop per block); null: externals run at once. */
  inclusion: Inclusion | null = null;
  private constructor(
    readonly blockchain: Blockchain,
    readonly admin: SandboxContract<TreasuryContract>,
    readonly usdt: SandboxContract<JettonMinter>,
    readonly fake: SandboxContract<JettonMinter>,
    readonly payer: SandboxContract<TreasuryContract>,
  ) {}

  static async create(now = 1_800_000_000, inclusion?: InclusionOptions): Promise<SandboxChain> {
    const blockchain = await Blockchain.create();
    blockchain.now = now;
    const admin = await blockchain.treasury('admin');
    const payer = await blockchain.treasury('payer');
    // USDT-like metadata on chain (6 decimals): the adapter checks them at start (token-check.ts).
    const minter = (symbol: string) =>
      blockchain.openContract(
        JettonMinter.createFromConfig({ admin: admin.address, content: onchainContent({ symbol, decimals: 6, uri: `https://example.invalid/${symbol}.json` }), jettonWalletCode: JettonWallet.code }),
      );
    const usdt = minter('usdt');
    const fake = minter('fake-usdt');
    await usdt.sendDeploy(admin.getSender(), toNano('0.1'));
    await fake.sendDeploy(admin.getSender(), toNano('0.1'));
    const chain = new SandboxChain(blockchain, admin, usdt, fake, payer);
    await chain.mint(payer.address, 1_000_000_000_000n);
    await chain.mint(payer.address, 1_000_000_000_000n, true);
    if (inclusion) chain.inclusion = new Inclusion(chain, inclusion);
    return chain;
  }

  get now(): number {
    return this.blockchain.now ?? 0;
  }

  advance(seconds: number): void {
    this.blockchain.now = this.now + seconds;
    this.seqno += 1;
  }

  async mint(owner: Address, amount: bigint, fake = false): Promise<void> {
    await (fake ? this.fake : this.usdt).sendMint(this.admin.getSender(), owner, amount, { value: toNano('0.2') });
    this.seqno += 1;
  }

  async jettonWallet(owner: Address, fake = false): Promise<Address> {
    return (fake ? this.fake : this.usdt).getWalletAddress(owner);
  }

  async jettonBalance(owner: Address, fake = false): Promise<bigint> {
    const wallet = this.blockchain.openContract(JettonWallet.createFromAddress(await this.jettonWallet(owner, fake)));
    try {
      return (await wallet.getData()).balance;
    } catch {
      return 0n;
    }
  }

  /** A jetton transfer from the payer's jetton wallet (TEP-74 `transfer`), with a comment in the forward payload. */
  async pay(options: PayOptions): Promise<BlockchainTransaction[]> {
    const payer = options.payer ?? this.payer;
    const source = await this.jettonWallet(payer.address, options.fake);
    const payload = commentPayload(options.memo ?? null, options.encrypted === true);
    const body = beginCell()
      .storeUint(OP.transfer, 32)
      .storeUint(0, 64)
      .storeCoins(options.amount)
      .storeAddress(options.to)
      .storeAddress(payer.address)
      .storeBit(false)
      .storeCoins(options.forwardTon ?? 1n);
    if (payload === null) body.storeBit(false);
    else if (options.payloadInRef) body.storeBit(true).storeRef(payload);
    else body.storeBit(false).storeSlice(payload.beginParse());
    const result = await payer.send({ to: source, value: toNano('0.1'), body: body.endCell() });
    this.seqno += 1;
    return result.transactions;
  }

  /** Anyone can send the notification op to our wallet: it must never count. */
  async forgeNotification(to: Address, amount: bigint, memo: string): Promise<void> {
    const body = beginCell().storeUint(OP.transferNotification, 32).storeUint(0, 64).storeCoins(amount).storeAddress(this.payer.address).storeBit(false).storeStringTail(`\0\0\0\0${memo}`);
    await this.payer.send({ to, value: toNano('0.05'), body: body.endCell() });
    this.seqno += 1;
  }

  /** An internal_transfer sent straight to a jetton wallet by a stranger: the wallet throws (aborted, bounced back). */
  async forgeInternalTransfer(jettonWallet: Address, amount: bigint, memo: string): Promise<BlockchainTransaction[]> {
    const result = await this.payer.send({ to: jettonWallet, value: toNano('0.1'), body: internalTransferBody(amount, this.payer.address, memo) });
    this.seqno += 1;
    return result.transactions;
  }

  /**
   * A bounced message carrying an internal_transfer body (what a jetton wallet receives when its own
   * transfer to another wallet bounced): the wallet restores its balance, which is no deposit.
   * Only a sandbox can forge the bounced flag; the harness uses it to make such a transaction.
   */
  async bouncedInternalTransfer(jettonWallet: Address, amount: bigint, memo: string): Promise<BlockchainTransaction[]> {
    const body = beginCell()
      .storeUint(0xffffffff, 32)
      .storeSlice(internalTransferBody(amount, this.payer.address, memo).beginParse())
      .endCell();
    const result = await this.blockchain.sendMessage(internal({ from: this.usdt.address, to: jettonWallet, value: toNano('0.05'), bounce: false, bounced: true, body }));
    this.seqno += 1;
    return result.transactions;
  }

  /**
   * A stranger's `transfer` op with OUR query_id sent to our jetton wallet (anyone can send it): the
   * wallet throws (the stranger is not its owner) and bounces it back to the stranger.
   */
  async strangerTransfer(jettonWallet: Address, queryId: bigint, to: Address, amount: bigint): Promise<BlockchainTransaction[]> {
    const body = beginCell()
      .storeUint(OP.transfer, 32)
      .storeUint(queryId, 64)
      .storeCoins(amount)
      .storeAddress(to)
      .storeAddress(this.payer.address)
      .storeBit(false)
      .storeCoins(1n)
      .storeBit(false)
      .endCell();
    const result = await this.payer.send({ to: jettonWallet, value: toNano('0.1'), body });
    this.seqno += 1;
    return result.transactions;
  }

  /**
   * Makes `owner`'s jetton wallet one that refuses every incoming jetton transfer: the standard jetton
   * wallet code at its address, its data naming another master, so our jetton wallet's
   * `internal_transfer` fails its sender check (exit 707) and the chain bounces it back to us.
   */
  async refusingJettonWallet(owner: Address): Promise<Address> {
    const address = await this.jettonWallet(owner);
    const data = beginCell().storeCoins(0n).storeAddress(owner).storeAddress(this.fake.address).storeRef(JettonWallet.code).endCell();
    await this.blockchain.setShardAccount(address, createShardAccount({ address, code: JettonWallet.code, data, balance: toNano('0.1') }));
    this.seqno += 1;
    return address;
  }

  /** Sends TON to an address (funds our service wallet for gas). */
  async fund(to: Address, value: bigint): Promise<void> {
    await this.admin.send({ to, value, bounce: false });
    this.seqno += 1;
  }

  /** Transactions whose in-message went to `address`, newest first (sandbox 0.41's own paging is broken). */
  async transactionsOf(address: Address): Promise<BlockchainTransaction[]> {
    const all = await this.blockchain.getTransactions(address);
    return [...all].sort((a, b) => (a.lt === b.lt ? 0 : a.lt < b.lt ? 1 : -1));
  }
}

function internalTransferBody(amount: bigint, from: Address, memo: string): Cell {
  return beginCell()
    .storeUint(OP.internalTransfer, 32)
    .storeUint(0, 64)
    .storeCoins(amount)
    .storeAddress(from)
    .storeAddress(from)
    .storeCoins(1n)
    .storeBit(false)
    .storeUint(0, 32)
    .storeStringTail(memo)
    .endCell();
}

/** A text comment (op 0 + snake string) or an "encrypted" one (op 0x2167da4b + bytes). */
export function commentPayload(memo: string | null, encrypted: boolean): Cell | null {
  if (memo === null) return null;
  if (encrypted) return beginCell().storeUint(OP.encryptedComment, 32).storeStringTail(memo).endCell();
  return beginCell().storeUint(0, 32).storeStringTail(memo).endCell();
}

export { Address };
