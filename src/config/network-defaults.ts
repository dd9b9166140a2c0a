import type { NetworkCode } from '../domain/networks';

/** Defaults for the operator-tunable network settings; each is overridable by `<CODE>_<SETTING>`. */
export interface NetworkDefaults {
  readonly buyerNetworkFee: string;
  readonly withdrawalFee: string;
  readonly minInvoice: string;
  readonly minWithdrawal: string;
  /** Chosen near each chain's practical finality. */
  readonly requiredConfirmations: number;
}

export const NETWORK_DEFAULTS: Readonly<Record<NetworkCode, NetworkDefaults>> = {
  // TRON transfers burn energy; the buyer covers it. 20 deep (TRC20_CONFIRMATIONS), and the live
  // adapter also waits for the block to be solidified (19 of 27 super representatives).
  TRC20: { buyerNetworkFee: '1', withdrawalFee: '1', minInvoice: '1', minWithdrawal: '5', requiredConfirmations: 20 },
  BEP20: { buyerNetworkFee: '0', withdrawalFee: '0.3', minInvoice: '0.5', minWithdrawal: '2', requiredConfirmations: 15 },
  TON: { buyerNetworkFee: '0', withdrawalFee: '0.2', minInvoice: '0.5', minWithdrawal: '2', requiredConfirmations: 3 },
  POLYGON: { buyerNetworkFee: '0', withdrawalFee: '0.2', minInvoice: '0.5', minWithdrawal: '2', requiredConfirmations: 64 },
  ARBITRUM: { buyerNetworkFee: '0', withdrawalFee: '0.3', minInvoice: '0.5', minWithdrawal: '2', requiredConfirmations: 20 },
  SOLANA: { buyerNetworkFee: '0', withdrawalFee: '0.5', minInvoice: '0.5', minWithdrawal: '2', requiredConfirmations: 32 },
};
