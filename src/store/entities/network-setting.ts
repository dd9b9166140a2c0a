import { EntitySchema } from '@mikro-orm/core';
import type { NetworkCode } from '../../domain/networks';

/** The live, operator-changeable settings of a network (GET /v1/networks reads these). */
export class NetworkSetting {
  active = true;
  version = 1;
  /** Block-explorer URL template ("{tx}" = the hash); null: the built-in mainnet default; '': none. */
  explorerTxUrl: string | null = null;
  constructor(
    public code: NetworkCode,
    public buyerNetworkFee: string,
    public withdrawalFee: string,
    public minInvoice: string,
    public minWithdrawal: string,
    public requiredConfirmations: number,
    public updatedAt: Date,
  ) {}
}

export const NetworkSettingSchema = new EntitySchema<NetworkSetting>({
  class: NetworkSetting,
  tableName: 'network_settings',
  properties: {
    code: { type: 'string', length: 16, primary: true },
    buyerNetworkFee: { type: 'decimal', precision: 38, scale: 18 },
    withdrawalFee: { type: 'decimal', precision: 38, scale: 18 },
    minInvoice: { type: 'decimal', precision: 38, scale: 18 },
    minWithdrawal: { type: 'decimal', precision: 38, scale: 18 },
    requiredConfirmations: { type: 'integer' },
    active: { type: 'boolean' },
    explorerTxUrl: { type: 'text', nullable: true },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    version: { type: 'integer', version: true },
  },
});
