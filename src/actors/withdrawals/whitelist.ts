import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../../domain/clock';
import { NotFoundError, ValidationError } from '../../domain/errors';
import type { NetworkCode, NetworkSettings } from '../../domain/networks';
import type { ChainAdapter } from '../../chains/types';
import { WhitelistEntry } from '../../store/entities';
import { recordAudit } from '../../store/repos/audit';
import { RawSql } from '../../store/raw-sql';

export const WHITELIST_COOLDOWN_MS = 24 * 60 * 60 * 1000;

interface UsableRow {
  readonly address: string;
  readonly usable_ms: number;
}

export interface WhitelistDeps {
  readonly orm: MikroORM;
  readonly clock: Clock;
  readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  readonly cooldownMs?: number;
}

/**
 * Payout addresses per merchant and network. An address is usable `cooldownMs` (24 h, daemon
 * clock) after it was added; removing and re-adding it starts the cooldown again. Entries are
 * matched by the network's normalized form (EVM case, TON bounceable/raw forms are one address);
 * the row keeps the form first written.
 */
export class Whitelist {
  private readonly sql: RawSql;

  constructor(private readonly deps: WhitelistDeps) {
    this.sql = new RawSql(deps.orm);
  }

  private get cooldownMs(): number {
    return this.deps.cooldownMs ?? WHITELIST_COOLDOWN_MS;
  }

  async add(merchantId: string, network: NetworkSettings, address: string, actor: string): Promise<WhitelistEntry> {
    const normalized = this.normalize(network, address);
    return this.deps.orm.em.fork().transactional(async (em) => {
      await lockMerchant(em, merchantId);
      const now = this.deps.clock.now();
      const usableAt = new Date(now.getTime() + this.cooldownMs);
      let entry = await this.find(em, merchantId, network, normalized, true);
      if (entry && entry.removedAt === null) return entry; // already listed: the running cooldown stands
      if (entry) Object.assign(entry, { addedAt: now, usableAt, removedAt: null });
      else em.persist((entry = new WhitelistEntry(merchantId, network.code, address, now, usableAt)));
      recordAudit(em, { actor, action: 'whitelist.add', target: `merchant:${merchantId}`, before: null, after: { network: network.code, address, usable_at: usableAt.toISOString() }, at: now });
      await em.flush();
      return entry;
    });
  }

  async remove(merchantId: string, network: NetworkSettings, address: string, actor: string): Promise<WhitelistEntry> {
    const normalized = this.normalize(network, address);
    return this.deps.orm.em.fork().transactional(async (em) => {
      await lockMerchant(em, merchantId);
      const entry = await this.find(em, merchantId, network, normalized, false);
      if (!entry) throw new NotFoundError('whitelist_entry', address);
      const now = this.deps.clock.now();
      entry.removedAt = now;
      recordAudit(em, { actor, action: 'whitelist.remove', target: `merchant:${merchantId}`, before: { network: network.code, address: entry.address }, after: null, at: now });
      await em.flush();
      return entry;
    });
  }

  async list(merchantId: string, network: NetworkCode | null): Promise<WhitelistEntry[]> {
    const em = this.deps.orm.em.fork();
    await lockMerchant(em, merchantId, false);
    const where = network ? { merchantId, network, removedAt: null } : { merchantId, removedAt: null };
    return em.find(WhitelistEntry, where, { orderBy: { network: 'asc', addedAt: 'asc' } });
  }

  /**
   * Refuses (422) an address that is not listed, or still in its cooldown, at `now`. On every
   * withdrawal request: one prepared statement on the raw pool, no entity hydration.
   */
  async requireUsable(merchantId: string, network: NetworkSettings, address: string, now: Date): Promise<void> {
    const rows = await this.sql.query<UsableRow>(
      'select address, (extract(epoch from usable_at) * 1000)::float8 as usable_ms from withdrawal_whitelist where merchant_id = $1 and network = $2 and removed_at is null',
      [merchantId, network.code],
      'chainpay_whitelist_usable',
    );
    const refusal = this.refusal(rows, network, address, now);
    if (refusal) throw refusal;
  }

  /**
   * The same rule read in `em`'s transaction, for every network of the merchant at once: called
   * under the merchant's row lock (which whitelist add/remove take too), so a removal committed
   * before the lock was granted is seen. Returns the refusal for (network, address), or null.
   */
  async usableIn(em: EntityManager, merchantId: string, now: Date): Promise<(network: NetworkSettings, address: string) => ValidationError | null> {
    const rows = await em.execute<(UsableRow & { network: string })[]>(
      'select network, address, (extract(epoch from usable_at) * 1000)::float8 as usable_ms from withdrawal_whitelist where merchant_id = ? and removed_at is null',
      [merchantId],
    );
    return (network, address) => this.refusal(rows.filter((r) => r.network === network.code), network, address, now);
  }

  private refusal(rows: readonly UsableRow[], network: NetworkSettings, address: string, now: Date): ValidationError | null {
    const normalized = this.normalize(network, address);
    const adapter = this.deps.adapters.get(network.code)!;
    const entry = rows.find((r) => adapter.isValidAddress(r.address) && adapter.normalizeAddress(r.address) === normalized);
    if (!entry) {
      return new ValidationError('address_not_whitelisted', `address is not in the withdrawal whitelist for ${network.code}`, 'address');
    }
    if (Number(entry.usable_ms) > now.getTime()) {
      const usableAt = new Date(Number(entry.usable_ms)).toISOString();
      return new ValidationError('address_in_cooldown', `address was whitelisted less than 24 hours ago; usable from ${usableAt}`, 'address', { usable_at: usableAt });
    }
    return null;
  }

  private normalize(network: NetworkSettings, address: string): string {
    const adapter = this.deps.adapters.get(network.code);
    if (!adapter) throw new ValidationError('unknown_network', `${network.code} is not available`, 'network');
    if (!adapter.isValidAddress(address)) throw new ValidationError('invalid_address', `address is not a valid ${network.code} address`, 'address');
    return adapter.normalizeAddress(address);
  }

  /** Whitelists are short: normalizing each stored form in memory keeps the table as it is. */
  private async find(em: EntityManager, merchantId: string, network: NetworkSettings, normalized: string, includeRemoved: boolean): Promise<WhitelistEntry | null> {
    const adapter = this.deps.adapters.get(network.code)!;
    const rows = await em.find(WhitelistEntry, includeRemoved ? { merchantId, network: network.code } : { merchantId, network: network.code, removedAt: null });
    return rows.find((r) => adapter.isValidAddress(r.address) && adapter.normalizeAddress(r.address) === normalized) ?? null;
  }
}

/** Serializes changes per merchant (and 404s an unknown merchant). */
export async function lockMerchant(em: EntityManager, merchantId: string, forUpdate = true): Promise<void> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(merchantId);
  const rows = uuid ? await em.execute<{ id: string }[]>(`select id from merchants where id = ?${forUpdate ? ' for update' : ''}`, [merchantId]) : [];
  if (rows.length === 0) throw new NotFoundError('merchant', merchantId);
}

