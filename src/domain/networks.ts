/** The six networks of the REST contract and their fixed, chain-given facts. */
export const NETWORK_CODES = ['TRC20', 'BEP20', 'TON', 'POLYGON', 'ARBITRUM', 'SOLANA'] as const;
export type NetworkCode = (typeof NETWORK_CODES)[number];

export type DepositMode = 'address_pool' | 'master_memo';
export type ChainFamily = 'evm' | 'tron' | 'ton' | 'solana';

export interface NetworkFacts {
  readonly code: NetworkCode;
  readonly name: string;
  readonly family: ChainFamily;
  readonly depositMode: DepositMode;
  /** USDT's decimals on this network (DESIGN.md, Money). */
  readonly tokenDecimals: number;
  /** The real USDT contract / jetton master / mint (DESIGN.md, Deposit addresses). */
  readonly mainnetToken: string;
  /** EVM chain id, for EIP-681 links. */
  readonly chainId?: number;
}

export const NETWORK_FACTS: Readonly<Record<NetworkCode, NetworkFacts>> = {
  TRC20: { code: 'TRC20', name: 'Tron (TRC20)', family: 'tron', depositMode: 'address_pool', tokenDecimals: 6, mainnetToken: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
  BEP20: { code: 'BEP20', name: 'BNB Smart Chain (BEP20)', family: 'evm', depositMode: 'address_pool', tokenDecimals: 18, mainnetToken: '0x55d398326f99059fF775485246999027B3197955', chainId: 56 },
  TON: { code: 'TON', name: 'TON', family: 'ton', depositMode: 'master_memo', tokenDecimals: 6, mainnetToken: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs' },
  POLYGON: { code: 'POLYGON', name: 'Polygon PoS', family: 'evm', depositMode: 'address_pool', tokenDecimals: 6, mainnetToken: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', chainId: 137 },
  ARBITRUM: { code: 'ARBITRUM', name: 'Arbitrum One', family: 'evm', depositMode: 'address_pool', tokenDecimals: 6, mainnetToken: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', chainId: 42161 },
  SOLANA: { code: 'SOLANA', name: 'Solana', family: 'solana', depositMode: 'address_pool', tokenDecimals: 6, mainnetToken: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p' },
};

export function isNetworkCode(value: unknown): value is NetworkCode {
  return typeof value === 'string' && (NETWORK_CODES as readonly string[]).includes(value);
}

/** Live, operator-changeable settings of one network (persisted; GET /v1/networks shows them). */
export interface NetworkSettings {
  readonly code: NetworkCode;
  readonly name: string;
  readonly buyerNetworkFee: string;
  readonly withdrawalFee: string;
  readonly minInvoice: string;
  readonly minWithdrawal: string;
  readonly requiredConfirmations: number;
  readonly depositMode: DepositMode;
  readonly tokenContract: string;
  readonly tokenDecimals: number;
  readonly active: boolean;
  /** The stored explorer template: null = the mainnet default, '' = none (see explorers.ts, explorerTemplate). */
  readonly explorerTxUrl: string | null;
}
