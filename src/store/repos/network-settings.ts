import type { EntityManager } from '@mikro-orm/postgresql';
import { NETWORK_CODES, NETWORK_FACTS, type NetworkCode, type NetworkSettings } from '../../domain/networks';
import { NotFoundError } from '../../domain/errors';
import { NetworkSetting } from '../entities';

export interface NetworkSeed {
  readonly code: NetworkCode;
  readonly enabled: boolean;
  readonly buyerNetworkFee: string;
  readonly withdrawalFee: string;
  readonly minInvoice: string;
  readonly minWithdrawal: string;
  readonly requiredConfirmations: number;
}

export interface NetworkTokenInfo {
  readonly tokenContract: string;
  readonly tokenDecimals: number;
}

export type NetworkPatch = Partial<Pick<NetworkSetting, 'buyerNetworkFee' | 'withdrawalFee' | 'minInvoice' | 'minWithdrawal' | 'requiredConfirmations' | 'active'>>;

/** decimal(38,18) comes back as "1.000000000000000000": show it canonically. */
export function canonicalDecimal(value: string): string {
  if (!value.includes('.')) return value;
  const trimmed = value.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '' || trimmed === '-' ? '0' : trimmed;
}

/**
 * Network settings live in the database so every daemon sees a fee change at once.
 * At start the configured values are written (configuration wins over an earlier runtime change,
 * so an operator who sets `<CODE>_WITHDRAWAL_FEE` gets that value after a restart).
 */
export class NetworkSettingsRepo {
  constructor(private readonly tokens: () => ReadonlyMap<NetworkCode, NetworkTokenInfo>) {}

  async seed(em: EntityManager, seeds: readonly NetworkSeed[], now: Date): Promise<void> {
    for (const s of seeds) {
      await em.execute(
        `insert into network_settings (code, buyer_network_fee, withdrawal_fee, min_invoice, min_withdrawal, required_confirmations, active, updated_at, version)
         values (?, ?, ?, ?, ?, ?, ?, ?, 1)
         on conflict (code) do update set buyer_network_fee = excluded.buyer_network_fee, withdrawal_fee = excluded.withdrawal_fee,
           min_invoice = excluded.min_invoice, min_withdrawal = excluded.min_withdrawal, required_confirmations = excluded.required_confirmations,
           active = excluded.active, updated_at = excluded.updated_at, version = network_settings.version + 1`,
        [s.code, s.buyerNetworkFee, s.withdrawalFee, s.minInvoice, s.minWithdrawal, s.requiredConfirmations, s.enabled, now],
      );
    }
  }

  async list(em: EntityManager, options: { includeInactive?: boolean } = {}): Promise<NetworkSettings[]> {
    const rows = await em.find(NetworkSetting, options.includeInactive ? {} : { active: true });
    const order = new Map(NETWORK_CODES.map((c, i) => [c as string, i]));
    return rows.sort((a, b) => (order.get(a.code) ?? 99) - (order.get(b.code) ?? 99)).map((r) => this.toSettings(r));
  }

  async get(em: EntityManager, code: NetworkCode): Promise<NetworkSettings | null> {
    const row = await em.findOne(NetworkSetting, { code });
    return row ? this.toSettings(row) : null;
  }

  async update(em: EntityManager, code: NetworkCode, patch: NetworkPatch, now: Date): Promise<{ before: NetworkSettings; after: NetworkSettings }> {
    const row = await em.findOne(NetworkSetting, { code });
    if (!row) throw new NotFoundError('network', code);
    const before = this.toSettings(row);
    Object.assign(row, Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)));
    row.updatedAt = now;
    await em.flush();
    return { before, after: this.toSettings(row) };
  }

  private toSettings(row: NetworkSetting): NetworkSettings {
    const facts = NETWORK_FACTS[row.code];
    const token = this.tokens().get(row.code);
    return {
      code: row.code,
      name: facts.name,
      buyerNetworkFee: canonicalDecimal(row.buyerNetworkFee),
      withdrawalFee: canonicalDecimal(row.withdrawalFee),
      minInvoice: canonicalDecimal(row.minInvoice),
      minWithdrawal: canonicalDecimal(row.minWithdrawal),
      requiredConfirmations: row.requiredConfirmations,
      depositMode: facts.depositMode,
      tokenContract: token?.tokenContract ?? facts.mainnetToken,
      tokenDecimals: token?.tokenDecimals ?? facts.tokenDecimals,
      active: row.active,
    };
  }
}
