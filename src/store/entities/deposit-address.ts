import { EntitySchema } from '@mikro-orm/core';

/**
 * A pre-derived deposit address (address_pool networks).
 * Invariant: at most one open invoice holds an address, across every network of its index space
 * (the networks that derive one address: the EVM family); an address returns to `free` only after
 * its late-payment window (`availableAt`), so a late payment is never credited to a new invoice.
 * `reserved`: held by the running engine for its next invoices (actors/invoices/address-reserve.ts).
 * `retired`: a `legacy` row (migration 20261129120000) its invoice let go: kept so the address stays
 * known, never handed out again (the index's owner row on another network is).
 */
export type AddressState = 'free' | 'reserved' | 'allocated' | 'cooling' | 'retired';

export class DepositAddress {
  state: AddressState = 'free';
  invoiceUuid: string | null = null;
  availableAt: Date | null = null;
  allocatedAt: Date | null = null;
  /** A second row of one index from before the shared index space (migration 20261129120000): held until its invoice lets go, never allocated. */
  legacy = false;
  constructor(
    public network: string,
    /** The family id where its networks derive one address (FamilyRegistry.indexSpace), else the network. */
    public indexSpace: string,
    public derivationIndex: number,
    public address: string,
    /** normalizeAddress() form: the key of the watcher's in-memory set. */
    public normalized: string,
    public createdAt: Date,
  ) {}
}

export const DepositAddressSchema = new EntitySchema<DepositAddress>({
  class: DepositAddress,
  tableName: 'deposit_addresses',
  primaryKeys: ['network', 'derivationIndex'] as never,
  uniques: [{ properties: ['network', 'normalized'], name: 'deposit_addresses_network_address_unique' }],
  // Allocation walks (network, state, derivation_index); release finds an invoice's address.
  indexes: [
    { properties: ['network', 'state', 'derivationIndex'] },
    { properties: ['invoiceUuid'] },
    // Who else holds an address of the index space (a wrong-network payment names them).
    { properties: ['indexSpace', 'normalized'] },
    // Each index of an index space belongs to one network (legacy rows aside): refills of two networks never insert one index twice.
    {
      name: 'deposit_addresses_index_space_unique',
      expression: 'create unique index "deposit_addresses_index_space_unique" on "deposit_addresses" ("index_space", "derivation_index") where not "legacy"',
    },
    { name: 'deposit_addresses_legacy_index', expression: 'create index "deposit_addresses_legacy_index" on "deposit_addresses" ("index_space", "derivation_index") where "legacy"' },
  ],
  properties: {
    network: { type: 'string', length: 16, primary: true },
    indexSpace: { type: 'string', length: 16 },
    derivationIndex: { type: 'integer', primary: true },
    address: { type: 'string', length: 128 },
    normalized: { type: 'string', length: 128 },
    state: { type: 'string', length: 16 },
    invoiceUuid: { type: 'uuid', nullable: true },
    legacy: { type: 'boolean', default: false },
    availableAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    allocatedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
