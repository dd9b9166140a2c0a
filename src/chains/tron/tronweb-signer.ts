import { providers, TronWeb } from 'tronweb';
import type { TronHttpClient } from './http-client';

/** A signed TriggerSmartContract transaction in java-tron's JSON form (what broadcasttransaction takes). */
export interface SignedTronTransaction {
  readonly txID: string;
  readonly raw_data: { readonly expiration: number; readonly timestamp: number; readonly ref_block_bytes: string; readonly ref_block_hash: string };
  readonly raw_data_hex: string;
  readonly signature: readonly string[];
}

/**
 * tronweb's HttpProvider, speaking through chainpay's TronHttpClient: the few requests tronweb makes
 * itself (the reference block of a local transaction) get the same API key, backoff and metrics.
 */
class ClientProvider extends providers.HttpProvider {
  constructor(
    base: string,
    private readonly http: TronHttpClient,
  ) {
    super(base);
  }

  override request<T = unknown>(url: string, payload: object = {}): Promise<T> {
    return this.http.post<T>(url.replace(/^\/+/, ''), payload);
  }
}

/** The reference block of a transaction, as tronweb's `blockHeader` option takes it. */
export interface TronRefBlock {
  /** The reference block's height (not in the transaction: only its 2 low bytes are). */
  readonly height: number;
  readonly ref_block_bytes: string;
  readonly ref_block_hash: string;
  /** ms of chain time: the reference block's time + the expiration window. */
  readonly expiration: number;
  /** ms: the reference block's time. */
  readonly timestamp: number;
}

/**
 * Builds and signs a TRC20 transfer locally with tronweb (txLocal, on the reference block and
 * expiration the caller gives; the txID is sha256 of raw_data, computed by tronweb's own protobuf
 * encoder). Nothing is sent.
 */
export class TronwebSigner {
  private readonly tronWeb: TronWeb;

  constructor(baseUrl: string, http: TronHttpClient) {
    const provider = new ClientProvider(baseUrl, http);
    this.tronWeb = new TronWeb({ fullNode: provider, solidityNode: provider, eventServer: provider });
  }

  /**
   * `memo` goes into raw_data.data. It must differ between payouts: the transaction carries no nonce,
   * so two payouts of the same amount to the same address built on the same reference block would
   * otherwise be the very same transaction (one txID), and the second broadcast would be "already
   * known" while only one transfer happens.
   */
  async transfer(input: { token: string; from: string; to: string; units: bigint; feeLimitSun: number; privateKeyHex: string; memo: string; ref: TronRefBlock }): Promise<SignedTronTransaction> {
    const { ref_block_bytes, ref_block_hash, expiration, timestamp } = input.ref;
    const built = await this.tronWeb.transactionBuilder.triggerSmartContract(
      input.token,
      'transfer(address,uint256)',
      { feeLimit: input.feeLimitSun, txLocal: true, blockHeader: { ref_block_bytes, ref_block_hash, expiration, timestamp } },
      [
        { type: 'address', value: input.to },
        { type: 'uint256', value: input.units.toString() },
      ],
      input.from,
    );
    const unique = await this.tronWeb.transactionBuilder.addUpdateData(built.transaction, input.memo, 'utf8', { txLocal: true });
    const signed = await this.tronWeb.trx.sign(unique, input.privateKeyHex);
    return signed as unknown as SignedTronTransaction;
  }
}
