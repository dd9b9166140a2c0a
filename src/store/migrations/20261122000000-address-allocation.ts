import { Migration } from '@mikro-orm/migrations';

/**
 * Address allocation in O(1): the allocating query walks (network, state, derivation_index) to the
 * first free (or due cooling) row instead of reading and sorting every address of the network, which
 * grew with every invoice ever created. Releasing or cooling an invoice's address finds it by
 * invoice_uuid instead of scanning the network's addresses.
 */
export class Migration20261122000000AddressAllocation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index if exists "deposit_addresses_network_state_index";`);
    this.addSql(`create index "deposit_addresses_network_state_derivation_index_index" on "deposit_addresses" ("network", "state", "derivation_index");`);
    this.addSql(`create index "deposit_addresses_invoice_uuid_index" on "deposit_addresses" ("invoice_uuid");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "deposit_addresses_invoice_uuid_index";`);
    this.addSql(`drop index if exists "deposit_addresses_network_state_derivation_index_index";`);
    this.addSql(`create index "deposit_addresses_network_state_index" on "deposit_addresses" ("network", "state");`);
  }
}
