import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 44: one EVM address is held on one network at a time. BEP20, POLYGON and ARBITRUM derive
 * index i to the same address (m/44'/60'/0'/0/i) and each had a pool of its own, so one address
 * could be open for three invoices at once. From here on the networks of a family that derive one
 * address share ONE index space (`index_space`: the family id, `evm`; other networks: their code),
 * and each index of it belongs to exactly one network's row (the unique index below), so the
 * row-level allocation (FOR UPDATE SKIP LOCKED) can never hand one address to two networks.
 *
 * A database of the old shape may hold an index on several networks. Per (index_space, index) one
 * row stays the owner (a held one first: allocated, then cooling, then the lowest network code);
 * the others become `legacy`: a legacy row still held keeps its invoice working (watched,
 * attributed, late window) and is never allocated again (state `retired` once its invoice lets it
 * go); a legacy row nobody holds is retired at once. While a legacy row holds an index, its owner
 * row is not allocated either (address-pool.ts, HELD_BY_LEGACY): the address returns to a pool
 * only when no network's invoice holds it. (Migration SQL names the EVM networks as they are
 * today: a migration is a snapshot; the registry decides for new rows.)
 */
export class Migration20261129120000SharedIndexSpace extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "deposit_addresses" add column "index_space" varchar(16) null, add column "legacy" boolean not null default false;`);
    this.addSql(`update "deposit_addresses" set "index_space" = case when "network" in ('BEP20', 'POLYGON', 'ARBITRUM') then 'evm' else "network" end;`);
    this.addSql(`alter table "deposit_addresses" alter column "index_space" set not null;`);
    this.addSql(
      `with ranked as (
         select network, derivation_index, row_number() over (
           partition by index_space, derivation_index
           order by case state when 'allocated' then 0 when 'cooling' then 1 else 2 end, network) as rank
         from deposit_addresses)
       update deposit_addresses d set legacy = true from ranked r
        where r.network = d.network and r.derivation_index = d.derivation_index and r.rank > 1;`,
    );
    // A legacy row nobody holds (free, or reserved by a stopped engine) is never handed out again.
    this.addSql(`update "deposit_addresses" set "state" = 'retired', "invoice_uuid" = null, "available_at" = null where "legacy" and "state" in ('free', 'reserved');`);
    this.addSql(`create unique index "deposit_addresses_index_space_unique" on "deposit_addresses" ("index_space", "derivation_index") where not "legacy";`);
    this.addSql(`create index "deposit_addresses_legacy_index" on "deposit_addresses" ("index_space", "derivation_index") where "legacy";`);
    this.addSql(`create index "deposit_addresses_index_space_normalized_index" on "deposit_addresses" ("index_space", "normalized");`);
    // The invoice a wrong-network payment was probably meant for (same address, another network of the family).
    this.addSql(`alter table "unattributed_deposits" add column "intended_invoice_uuid" uuid null, add column "intended_network" varchar(16) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "unattributed_deposits" drop column if exists "intended_network", drop column if exists "intended_invoice_uuid";`);
    this.addSql(`drop index if exists "deposit_addresses_index_space_normalized_index";`);
    this.addSql(`drop index if exists "deposit_addresses_legacy_index";`);
    this.addSql(`drop index if exists "deposit_addresses_index_space_unique";`);
    this.addSql(`update "deposit_addresses" set "state" = 'free' where "state" = 'retired';`);
    this.addSql(`alter table "deposit_addresses" drop column if exists "legacy", drop column if exists "index_space";`);
  }
}
