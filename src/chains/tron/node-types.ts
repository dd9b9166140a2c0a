/**
 * The parts of java-tron's HTTP API answers the adapter reads (shapes as in tronweb's types/Trx.d.ts
 * and TronGrid's recorded mainnet payloads; test/tron/support/fixtures has examples). An absent
 * object is `{}`: java-tron answers a block above its head or an unknown transaction that way.
 */

/** POST wallet/getblockbynum {num}, wallet/getnowblock, walletsolidity/getnowblock, wallet/getblock. */
export interface TronBlock {
  /** 32 bytes hex: 8-byte height then the last 24 bytes of the block hash. */
  readonly blockID?: string;
  readonly block_header?: {
    readonly raw_data: {
      readonly number?: number;
      readonly parentHash: string;
      /** ms since the epoch. */
      readonly timestamp: number;
    };
  };
  /** Absent on an empty block. */
  readonly transactions?: ReadonlyArray<{ readonly txID: string }>;
}

/** One event log of a TransactionInfo: hex without 0x; `address` is 20 bytes without the 41 prefix. */
export interface TronLog {
  readonly address: string;
  readonly topics?: readonly string[];
  readonly data?: string;
}

/** POST wallet/gettransactioninfobyblocknum {num} (one per transaction), wallet/gettransactioninfobyid {value}. */
export interface TronTransactionInfo {
  readonly id?: string;
  readonly blockNumber?: number;
  readonly blockTimeStamp?: number;
  readonly receipt?: { readonly result?: string; readonly energy_usage_total?: number };
  readonly log?: readonly TronLog[];
  /** 'FAILED' on failure (with resMessage); absent on success. */
  readonly result?: string;
}

/** POST wallet/triggerconstantcontract. */
export interface TronConstantResult {
  readonly result?: { readonly result?: boolean; readonly code?: string; readonly message?: string };
  /** ret[0].ret 'FAILED' when the simulated call reverted. */
  readonly transaction?: { readonly ret?: ReadonlyArray<{ readonly ret?: string }> };
  readonly energy_used?: number;
  readonly constant_result?: readonly string[];
}

/** POST wallet/broadcasttransaction: {result: true, txid} or {code, message (hex), txid}. */
export interface TronBroadcastResult {
  readonly result?: boolean;
  readonly code?: string;
  readonly message?: string;
  readonly txid?: string;
}

/** POST wallet/getaccount {address, visible}: `{}` for an account that never received TRX. */
export interface TronAccount {
  readonly address?: string;
  /** sun */
  readonly balance?: number;
}

/** POST wallet/getaccountresource {address, visible}: absent fields are 0. */
export interface TronAccountResources {
  readonly freeNetLimit?: number;
  readonly freeNetUsed?: number;
  readonly NetLimit?: number;
  readonly NetUsed?: number;
  readonly EnergyLimit?: number;
  readonly EnergyUsed?: number;
}

/** POST wallet/getcontract {value, visible}: `{}` when no contract is at the address. */
export interface TronContract {
  readonly contract_address?: string;
  readonly bytecode?: string;
}

/** POST wallet/getchainparameters. */
export interface TronChainParameters {
  readonly chainParameter?: ReadonlyArray<{ readonly key: string; readonly value?: number }>;
}

/** receipt.result of a transaction whose contract call succeeded. */
export const RECEIPT_SUCCESS = 'SUCCESS';
