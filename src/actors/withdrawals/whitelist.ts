import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../../domain/clock';
import { NotFoundError, ValidationError } from '../../domain/errors';
import { checkPayeeAccount } from './payee-account';
import type { NetworkCode, NetworkSettings } from '../../domain/networks';
import type { ChainAdapter } from '../../chains/types';
import { WhitelistEntry } from '../../store/entities';
import { recordAudit } from '../../store/repos/audit';
import { parseMemo } from '../../domain/withdrawal-memo';

export const WHITELIST_COOLDOWN_MS = 24 * 60 * 60 * 1000;

/** Memoized address forms kept at most (then forgotten all at once; recomputing is cheap). */
const ADDRESS_FORMS_MAX = 10_000;

export interface UsableRow {
  readonly address: string;
  readonly usable_ms: number;
  /** TON only: the entry's memo (absent in rows read without it). */
  readonly memo?: string | null;
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
  private readonly forms: AddressForms;

  constructor(private readonly deps: WhitelistDeps) {
    this.forms = new AddressForms(deps.adapters);
  }

  private get cooldownMs(): number {
    return this.deps.cooldownMs ?? WHITELIST_COOLDOWN_MS;
  }

  /**
   * `memo` (TON only, withdrawal-memo.ts): the comment a withdrawal to this address inherits. An
   * entry already listed with the same memo stays as it is (its cooldown stands); with another memo
   * it takes the new one and its cooldown starts again: at an exchange the memo chooses whose
   * account is paid, so changing it is as good as a new address.
   */
  async add(merchantId: string, network: NetworkSettings, address: string, actor: string, memoInput: unknown = null): Promise<WhitelistEntry> {
    const normalized = this.normalize(network, address);
    // A valid address the chain cannot pay (SOLANA: off the curve) is never listed.
    const adapter = this.deps.adapters.get(network.code);
    const refusal = adapter?.payeeRefusal?.(address);
    if (refusal) throw new ValidationError(refusal.code, refusal.message, 'address');
    const memo = parseMemo(memoInput, network.code);
    await checkPayeeAccount(adapter, network.code, address, 'listing');
    return this.deps.orm.em.fork().transactional(async (em) => {
      await lockMerchant(em, merchantId);
      const now = this.deps.clock.now();
      const usableAt = new Date(now.getTime() + this.cooldownMs);
      let entry = await this.find(em, merchantId, network, normalized, true);
      if (entry && entry.removedAt === null && entry.memo === memo) return entry; // already listed: the running cooldown stands
      const before = entry && entry.removedAt === null ? { network: network.code, address: entry.address, ...(entry.memo !== null ? { memo: entry.memo } : {}) } : null;
      if (entry) Object.assign(entry, { addedAt: now, usableAt, removedAt: null, memo });
      else {
        entry = new WhitelistEntry(merchantId, network.code, address, now, usableAt);
        entry.memo = memo;
        em.persist(entry);
      }
      const after = { network: network.code, address, usable_at: usableAt.toISOString(), ...(memo !== null ? { memo } : {}) };
      recordAudit(em, { actor, action: 'whitelist.add', target: `merchant:${merchantId}`, before, after, at: now });
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
   * Refuses (422) an address that is not listed, or still in its cooldown, at `now`: judged over
   * every active row of a merchant (all networks), as read in the creating
   * transaction under the merchant's row lock (which whitelist add/remove take too), so a removal
   * committed before the lock was granted is seen. Each stored row is normalized once here, not
   * once per input. Returns the refusal for (network, address), or null.
   */
  judge(rows: readonly (UsableRow & { readonly network: string })[], now: Date): (network: NetworkSettings, address: string) => ValidationError | null {
    const find = this.lookup(rows);
    return (network, address) => this.verdict(find(network, address), network, now);
  }

  /** The memo of the entry (network, address) matches in `rows` (as judge finds it), null when none or it has none. */
  memos(rows: readonly (UsableRow & { readonly network: string })[]): (network: NetworkSettings, address: string) => string | null {
    const find = this.lookup(rows);
    return (network, address) => find(network, address)?.memo ?? null;
  }

  private lookup(rows: readonly (UsableRow & { readonly network: string })[]): (network: NetworkSettings, address: string) => UsableRow | undefined {
    const byNetwork = new Map<string, Map<string, UsableRow>>();
    for (const r of rows) {
      const form = this.form(r.network as NetworkCode, r.address);
      if (form === null) continue;
      let forms = byNetwork.get(r.network);
      if (!forms) byNetwork.set(r.network, (forms = new Map()));
      if (!forms.has(form)) forms.set(form, r); // the first matching row counts, as a scan in row order would
    }
    return (network, address) => {
      const normalized = this.normalize(network, address); // first: an input that is no address of the network is refused as such
      return byNetwork.get(network.code)?.get(normalized);
    };
  }

  private verdict(entry: UsableRow | undefined, network: NetworkSettings, now: Date): ValidationError | null {
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
    if (!this.deps.adapters.has(network.code)) throw new ValidationError('unknown_network', `${network.code} is not available`, 'network');
    const form = this.form(network.code, address);
    if (form === null) throw new ValidationError('invalid_address', `address is not a valid ${network.code} address`, 'address');
    return form;
  }

  /** The network's normalized form of a valid address, null for an invalid one (see AddressForms). */
  form(network: NetworkCode, address: string): string | null {
    return this.forms.form(network, address);
  }

  /** Whitelists are short: normalizing each stored form in memory keeps the table as it is. */
  private async find(em: EntityManager, merchantId: string, network: NetworkSettings, normalized: string, includeRemoved: boolean): Promise<WhitelistEntry | null> {
    const rows = await em.find(WhitelistEntry, includeRemoved ? { merchantId, network: network.code } : { merchantId, network: network.code, removedAt: null });
    return rows.find((r) => this.form(network.code, r.address) === normalized) ?? null;
  }
}

/** Serializes changes per merchant (and 404s an unknown merchant). */
export async function lockMerchant(em: EntityManager, merchantId: string, forUpdate = true): Promise<void> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(merchantId);
  const rows = uuid ? await em.execute<{ id: string }[]>(`select id from merchants where id = ?${forUpdate ? ' for update' : ''}`, [merchantId]) : [];
  if (rows.length === 0) throw new NotFoundError('merchant', merchantId);
}

/**
 * Address checks memoized: the network's normalized form of a valid address, null for an invalid
 * one (or a network without an adapter here). Address codecs are pure functions of the text, so a
 * request's address, and each stored whitelist row it is compared with, is checked and normalized
 * once, not on every request.
 */
export class AddressForms {
  /** `${network}\0${address}` -> normalized form, or null. */
  private readonly forms = new Map<string, string | null>();

  constructor(private readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>) {}

  form(network: NetworkCode, address: string): string | null {
    const adapter = this.adapters.get(network);
    if (!adapter) return null;
    const key = `${network}\u0000${address}`;
    const known = this.forms.get(key);
    if (known !== undefined) return known;
    const form = adapter.isValidAddress(address) ? adapter.normalizeAddress(address) : null;
    if (this.forms.size >= ADDRESS_FORMS_MAX) this.forms.clear();
    this.forms.set(key, form);
    return form;
  }

  /** adapter.isValidAddress, memoized; false without an adapter. */
  isValid(network: NetworkCode, address: string): boolean {
    return this.form(network, address) !== null;
  }
}
