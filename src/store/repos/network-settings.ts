import type { EntityManager } from '@mikro-orm/postgresql';
import { NETWORK_CODES, NETWORK_FACTS, type NetworkCode, type NetworkSettings } from '../../domain/networks';
import { NotFoundError } from '../../domain/errors';
import { NetworkSetting } from '../entities';

/** An EntityManager, or a factory called only when one is needed. */
export type EntityManagerSource = EntityManager | (() => EntityManager);

export interface NetworkSeed {
  readonly code: NetworkCode;
  readonly enabled: boolean;
  readonly buyerNetworkFee: string;
  readonly withdrawalFee: string;
  readonly minInvoice: string;
  readonly minWithdrawal: string;
  readonly requiredConfirmations: number;
  /** Settings given by the environment (`<CODE>_*` set): only these overwrite an existing row at start. */
  readonly fromEnvironment?: readonly SeedSetting[];
}

type SeedSetting = 'enabled' | 'buyerNetworkFee' | 'withdrawalFee' | 'minInvoice' | 'minWithdrawal' | 'requiredConfirmations';

/** Seed setting -> column, with the value it takes from the seed. */
const SEED_COLUMNS: Readonly<Record<SeedSetting, { column: string; value: (s: NetworkSeed) => string | number | boolean }>> = {
  enabled: { column: 'active', value: (s) => s.enabled },
  buyerNetworkFee: { column: 'buyer_network_fee', value: (s) => s.buyerNetworkFee },
  withdrawalFee: { column: 'withdrawal_fee', value: (s) => s.withdrawalFee },
  minInvoice: { column: 'min_invoice', value: (s) => s.minInvoice },
  minWithdrawal: { column: 'min_withdrawal', value: (s) => s.minWithdrawal },
  requiredConfirmations: { column: 'required_confirmations', value: (s) => s.requiredConfirmations },
};

export interface NetworkTokenInfo {
  readonly tokenContract: string;
  readonly tokenDecimals: number;
}

export type NetworkPatch = Partial<Pick<NetworkSetting, 'buyerNetworkFee' | 'withdrawalFee' | 'minInvoice' | 'minWithdrawal' | 'requiredConfirmations' | 'active' | 'explorerTxUrl'>>;

/** decimal(38,18) comes back as "1.000000000000000000": show it canonically. */
export function canonicalDecimal(value: string): string {
  if (!value.includes('.')) return value;
  const trimmed = value.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '' || trimmed === '-' ? '0' : trimmed;
}

/**
 * Network settings live in the database so every daemon sees a fee change at once.
 * At start a missing row is created from the configuration (defaults plus environment); an existing
 * row keeps its run-time changes (`chainpay networks set-fee`, deactivation) except the settings
 * whose `<CODE>_*` variable is set, which the environment wins. A restart or failover that sets no
 * variable therefore changes nothing.
 */
export class NetworkSettingsRepo {
  /**
   * All rows, read at most once per `ttlMs`: every invoice create reads them. A change through
   * update() on this daemon is seen at once (forget()); another daemon's change within ttlMs.
   */
  private cached: { at: number; rows: Promise<NetworkSettings[]> } | null = null;

  /**
   * `runs`: whether the daemon runs a chain for the network. One it does not run (in live mode, a
   * network without <CODE>_RPC_URL) shows as inactive whatever its row says, so it is not listed
   * and invoices and withdrawals on it are refused (`unknown_network`); its row keeps the
   * operator's setting for when it runs again.
   */
  constructor(
    private readonly tokens: () => ReadonlyMap<NetworkCode, NetworkTokenInfo>,
    private readonly ttlMs = 1_000,
    readonly runs: (code: NetworkCode) => boolean = () => true,
  ) {}

  /** Drop the cached rows (after a change is committed). */
  forget(): void {
    this.cached = null;
  }

  async seed(em: EntityManager, seeds: readonly NetworkSeed[], now: Date): Promise<void> {
    this.forget();
    for (const s of seeds) {
      await em.execute(
        `insert into network_settings (code, buyer_network_fee, withdrawal_fee, min_invoice, min_withdrawal, required_confirmations, active, updated_at, version)
         values (?, ?, ?, ?, ?, ?, ?, ?, 1)
         on conflict (code) do nothing`,
        [s.code, s.buyerNetworkFee, s.withdrawalFee, s.minInvoice, s.minWithdrawal, s.requiredConfirmations, s.enabled, now],
      );
      const given = [...new Set(s.fromEnvironment ?? [])].map((k) => SEED_COLUMNS[k]);
      if (given.length === 0) continue;
      // Only a real difference bumps updated_at/version (a restart with the same variables is a no-op).
      await em.execute(
        `update network_settings set ${given.map((g) => `${g.column} = ?`).join(', ')}, updated_at = ?, version = version + 1
         where code = ? and (${given.map((g) => `${g.column} is distinct from ?`).join(' or ')})`,
        [...given.map((g) => g.value(s)), now, s.code, ...given.map((g) => g.value(s))],
      );
    }
  }

  /**
   * `em` may be a factory: a fresh EntityManager is then forked only when the cached rows are stale
   * (a fork per call cost ~3% of the daemon's CPU per created invoice, measured).
   */
  async list(em: EntityManagerSource, options: { includeInactive?: boolean } = {}): Promise<NetworkSettings[]> {
    const all = await this.all(em);
    return options.includeInactive ? all : all.filter((n) => n.active);
  }

  async get(em: EntityManagerSource, code: NetworkCode): Promise<NetworkSettings | null> {
    return (await this.all(em)).find((n) => n.code === code) ?? null;
  }

  private all(source: EntityManagerSource): Promise<NetworkSettings[]> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < this.ttlMs) return this.cached.rows;
    const em = typeof source === 'function' ? source() : source;
    const rows = em.find(NetworkSetting, {}).then((found) => {
      const order = new Map(NETWORK_CODES.map((c, i) => [c as string, i]));
      return found.sort((a, b) => (order.get(a.code) ?? 99) - (order.get(b.code) ?? 99)).map((r) => this.toSettings(r));
    });
    const entry = { at: now, rows };
    this.cached = entry;
    // A failed read is not cached.
    rows.catch(() => {
      if (this.cached === entry) this.cached = null;
    });
    return rows;
  }

  async update(em: EntityManager, code: NetworkCode, patch: NetworkPatch, now: Date): Promise<{ before: NetworkSettings; after: NetworkSettings }> {
    const row = await em.findOne(NetworkSetting, { code });
    if (!row) throw new NotFoundError('network', code);
    const before = this.toSettings(row);
    Object.assign(row, Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)));
    row.updatedAt = now;
    await em.flush();
    // Forgotten here and again by the caller once its transaction committed (a read in between
    // could cache the old row).
    this.forget();
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
      active: row.active && this.runs(row.code),
      explorerTxUrl: row.explorerTxUrl,
    };
  }
}
