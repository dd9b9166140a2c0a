import { EntitySchema } from '@mikro-orm/core';

/**
 * A pre-derived deposit address (address_pool networks).
 * Invariant: at most one open invoice holds an address; an address returns to `free` only after
 * its late-payment window (`availableAt`), so a late payment is never credited to a new invoice.
 * `reserved`: held by the running engine for its next invoices (actors/invoices/address-reserve.ts).
 */
export type AddressState = 'free' | 'reserved' | 'allocated' | 'cooling';

export class DepositAddress {
  state: AddressState = 'free';
  invoiceUuid: string | null = null;
  availableAt: Date | null = null;
  allocatedAt: Date | null = null;
  constructor(
    public network: string,
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
  indexes: [{ properties: ['network', 'state', 'derivationIndex'] }, { properties: ['invoiceUuid'] }],
  properties: {
    network: { type: 'string', length: 16, primary: true },
    derivationIndex: { type: 'integer', primary: true },
    address: { type: 'string', length: 128 },
    normalized: { type: 'string', length: 128 },
    state: { type: 'string', length: 16 },
    invoiceUuid: { type: 'uuid', nullable: true },
    availableAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    allocatedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
