import type { TronHttpClient } from './http-client';
import type { TronAccount, TronAccountResources, TronBlock, TronBroadcastResult, TronChainParameters, TronConstantResult, TronContract, TronTransactionInfo } from './node-types';

/** A parameter of triggerconstantcontract: hex addresses with the 41 prefix, ABI-encoded parameter without 0x. */
export interface ConstantCall {
  readonly ownerHex: string;
  readonly contractHex: string;
  readonly selector: string;
  readonly parameter: string;
}

/**
 * The java-tron HTTP endpoints chainpay uses, typed. Full node (`wallet/`) for the head, blocks,
 * infos and broadcasts; solidity endpoints (`walletsolidity/`) for what is irreversible.
 */
export class TronNode {
  constructor(private readonly http: TronHttpClient) {}

  nowBlock(): Promise<TronBlock> {
    return this.http.post<TronBlock>('wallet/getnowblock');
  }

  solidNowBlock(): Promise<TronBlock> {
    return this.http.post<TronBlock>('walletsolidity/getnowblock');
  }

  blockByNum(num: number): Promise<TronBlock> {
    return this.http.post<TronBlock>('wallet/getblockbynum', { num });
  }

  /** Blocks [start, end) (at most 100), in order; fewer (or none) above the answering node's head. */
  async blocksByRange(start: number, end: number): Promise<TronBlock[]> {
    const answer = await this.http.post<{ block?: TronBlock[] }>('wallet/getblockbylimitnext', { startNum: start, endNum: end });
    return answer.block ?? [];
  }

  /** Solidified blocks [start, end) (at most 100); fewer above the solidified head. */
  async solidBlocksByRange(start: number, end: number): Promise<TronBlock[]> {
    const answer = await this.http.post<{ block?: TronBlock[] }>('walletsolidity/getblockbylimitnext', { startNum: start, endNum: end });
    return answer.block ?? [];
  }

  /** A solidified block (`{}` above the solidified head, or from a backend that has not seen it). */
  solidBlockByNum(num: number): Promise<TronBlock> {
    return this.http.post<TronBlock>('walletsolidity/getblockbynum', { num });
  }

  /** The head block's header without its transactions (what tronweb reads for a reference block). */
  headHeader(): Promise<TronBlock> {
    return this.http.post<TronBlock>('wallet/getblock', { detail: false });
  }

  /** One info per transaction of the block; `[]` (or `{}` from some versions) for an empty one. */
  async infosByBlockNum(num: number): Promise<TronTransactionInfo[]> {
    const answer = await this.http.post<TronTransactionInfo[] | Record<string, never>>('wallet/gettransactioninfobyblocknum', { num });
    return Array.isArray(answer) ? answer : [];
  }

  infoById(txID: string): Promise<TronTransactionInfo> {
    return this.http.post<TronTransactionInfo>('wallet/gettransactioninfobyid', { value: txID });
  }

  solidInfoById(txID: string): Promise<TronTransactionInfo> {
    return this.http.post<TronTransactionInfo>('walletsolidity/gettransactioninfobyid', { value: txID });
  }

  contract(addressHex: string): Promise<TronContract> {
    return this.http.post<TronContract>('wallet/getcontract', { value: addressHex, visible: false });
  }

  account(addressHex: string): Promise<TronAccount> {
    return this.http.post<TronAccount>('wallet/getaccount', { address: addressHex, visible: false });
  }

  resources(addressHex: string): Promise<TronAccountResources> {
    return this.http.post<TronAccountResources>('wallet/getaccountresource', { address: addressHex, visible: false });
  }

  chainParameters(): Promise<TronChainParameters> {
    return this.http.post<TronChainParameters>('wallet/getchainparameters');
  }

  constant(call: ConstantCall): Promise<TronConstantResult> {
    return this.http.post<TronConstantResult>('wallet/triggerconstantcontract', {
      owner_address: call.ownerHex,
      contract_address: call.contractHex,
      function_selector: call.selector,
      parameter: call.parameter,
      visible: false,
    });
  }

  broadcast(signed: unknown): Promise<TronBroadcastResult> {
    return this.http.post<TronBroadcastResult>('wallet/broadcasttransaction', signed);
  }
}

/** An empty answer (`{}`): java-tron's way of saying "no such block / transaction". */
export function isEmpty(o: object): boolean {
  return Object.keys(o).length === 0;
}
