import { Invoice, InvoicePayment, type FeePayer, type PaymentState } from '../entities';
import type { NetworkCode } from '../../domain/networks';
import { toDate, toDateOrNull, type Query } from '../raw-sql';

/**
 * The invoice hot paths (create, read) in raw SQL: the same columns the entity maps, returned as
 * plain (unmanaged) Invoice / InvoicePayment objects. Writes of an open invoice's state stay with
 * the actors' unit of work.
 */
const INSERT_COLUMNS = [
  'uuid',
  'merchant_id',
  'order_id',
  'status',
  'title',
  'amount',
  'currency',
  'platform_fee',
  'network_fee',
  'pay_amount',
  'merchant_net',
  'fee_payer',
  'network',
  'address',
  'memo',
  'received_amount',
  'confirmations',
  'required_confirmations',
  'tx_hash',
  'payment_uri',
  'metadata_json',
  'webhook_url',
  'return_url',
  'cancel_url',
  'expires_at',
  'paid_at',
  'paid_late',
  'booked_received',
  'open',
  'closed_at',
  'actor_snapshot',
  'created_at',
  'updated_at',
  'version',
] as const;

const INSERT_SQL = `insert into invoices (${INSERT_COLUMNS.join(', ')}) values (${INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

/**
 * The invoice row and its deposit address in ONE autocommit statement: the reserved address
 * (network, derivation index) becomes allocated to the invoice and the row is inserted, or
 * neither happens (no row when the address is no longer reserved; an order_id clash fails both).
 * One round trip instead of begin/allocate/insert/commit.
 */
const INSERT_ON_RESERVED_SQL = `with a as (
    update deposit_addresses set state = 'allocated', invoice_uuid = $1, allocated_at = $${INSERT_COLUMNS.length + 3}
     where network = $${INSERT_COLUMNS.length + 1} and derivation_index = $${INSERT_COLUMNS.length + 2} and state = 'reserved' returning 1)
  insert into invoices (${INSERT_COLUMNS.join(', ')}) select ${INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')} from a returning uuid`;

/** The PostgreSQL type of each of INSERT_COLUMNS, for the arrays of a batch insert (unnest). */
const COLUMN_TYPES: Record<(typeof INSERT_COLUMNS)[number], string> = {
  uuid: 'uuid',
  merchant_id: 'uuid',
  order_id: 'text',
  status: 'text',
  title: 'text',
  amount: 'numeric',
  currency: 'text',
  platform_fee: 'numeric',
  network_fee: 'numeric',
  pay_amount: 'numeric',
  merchant_net: 'numeric',
  fee_payer: 'text',
  network: 'text',
  address: 'text',
  memo: 'text',
  received_amount: 'numeric',
  confirmations: 'int',
  required_confirmations: 'int',
  tx_hash: 'text',
  payment_uri: 'text',
  metadata_json: 'text',
  webhook_url: 'text',
  return_url: 'text',
  cancel_url: 'text',
  expires_at: 'timestamptz',
  paid_at: 'timestamptz',
  paid_late: 'boolean',
  booked_received: 'numeric',
  open: 'boolean',
  closed_at: 'timestamptz',
  actor_snapshot: 'text',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  version: 'int',
};

/**
 * INSERT_ON_RESERVED_SQL for many rows in ONE autocommit statement (one WAL flush, one round
 * trip): each row's reserved address becomes allocated to it and the row is inserted, or, for a
 * row whose address is no longer reserved, neither (its uuid is missing from what comes back). Any
 * error (an order_id clash, also between two rows of the batch) fails the whole statement, and
 * nothing of it is written.
 */
const n = INSERT_COLUMNS.length;
const BATCH_INSERT_ON_RESERVED_SQL = `with i as (
    select * from unnest(${INSERT_COLUMNS.map((c, k) => `$${k + 1}::${COLUMN_TYPES[c]}[]`).join(', ')}, $${n + 1}::text[], $${n + 2}::int[], $${n + 3}::timestamptz[])
      as t(${INSERT_COLUMNS.join(', ')}, address_network, derivation_index, allocated_at)),
  a as (
    update deposit_addresses d set state = 'allocated', invoice_uuid = i.uuid, allocated_at = i.allocated_at
      from i where d.network = i.address_network and d.derivation_index = i.derivation_index and d.state = 'reserved'
    returning d.invoice_uuid)
  insert into invoices (${INSERT_COLUMNS.join(', ')})
  select ${INSERT_COLUMNS.map((c) => (c === 'actor_snapshot' ? 'i.actor_snapshot::jsonb' : `i.${c}`)).join(', ')} from i join a on a.invoice_uuid = i.uuid
  returning uuid`;

/** Every column but the snapshot (the entity loads it lazily too), plus the payments in one round trip. */
const SELECT_COLUMNS = INSERT_COLUMNS.filter((c) => c !== 'actor_snapshot')
  .map((c) => `i.${c}`)
  .join(', ');
// Amounts and heights as text: a JSON number would lose precision.
const PAYMENTS = `(select json_agg(json_build_object('id', p.id, 'network', p.network, 'tx_hash', p.tx_hash, 'event_index', p.event_index,
  'from_address', p.from_address, 'to_address', p.to_address, 'memo', p.memo, 'amount', p.amount::text, 'block_height', p.block_height::text,
  'block_hash', p.block_hash, 'confirmations', p.confirmations, 'state', p.state, 'late', p.late, 'seen_at', p.seen_at)) from invoice_payments p where p.invoice_uuid = i.uuid) as payments`;
const SELECT_SQL = `select ${SELECT_COLUMNS}, ${PAYMENTS} from invoices i`;

export async function insertInvoice(q: Query, row: Invoice): Promise<void> {
  await q(INSERT_SQL, insertValues(row), 'chainpay_insert_invoice');
}

function insertValues(row: Invoice): unknown[] {
  return [
    row.uuid,
    row.merchantId,
    row.orderId,
    row.status,
    row.title,
    row.amount,
    row.currency,
    row.platformFee,
    row.networkFee,
    row.payAmount,
    row.merchantNet,
    row.feePayer,
    row.network,
    row.address,
    row.memo,
    row.receivedAmount,
    row.confirmations,
    row.requiredConfirmations,
    row.txHash,
    row.paymentUri,
    row.metadataJson,
    row.webhookUrl,
    row.returnUrl,
    row.cancelUrl,
    row.expiresAt,
    row.paidAt,
    row.paidLate,
    row.bookedReceived,
    row.open,
    row.closedAt,
    JSON.stringify(row.actorSnapshot),
    row.createdAt,
    row.updatedAt,
    row.version,
  ];
}

/** Inserts `row` on its reserved deposit address; false when the address was not reserved any more. */
export async function insertInvoiceOnReserved(q: Query, row: Invoice, address: { network: string; derivationIndex: number }, now: Date): Promise<boolean> {
  const rows = await q(INSERT_ON_RESERVED_SQL, [...insertValues(row), address.network, address.derivationIndex, now], 'chainpay_insert_invoice_on_reserved');
  return rows.length === 1;
}

/** A new invoice row on its reserved deposit address (network, derivation index), allocated at `now`. */
export interface ReservedInsert {
  readonly row: Invoice;
  readonly address: { readonly network: string; readonly derivationIndex: number };
  readonly now: Date;
}

/** Inserts the rows on their reserved addresses in one statement; the uuids inserted (a row whose address was no longer reserved is not). */
export async function insertInvoicesOnReserved(q: Query, inserts: readonly ReservedInsert[]): Promise<Set<string>> {
  const columns: unknown[][] = INSERT_COLUMNS.map(() => []);
  for (const { row } of inserts) {
    const values = insertValues(row);
    for (let k = 0; k < values.length; k++) {
      const v = values[k];
      columns[k]!.push(v instanceof Date ? v.toISOString() : v);
    }
  }
  const params = [...columns, inserts.map((i) => i.address.network), inserts.map((i) => i.address.derivationIndex), inserts.map((i) => i.now.toISOString())];
  const rows = await q<{ uuid: string }>(BATCH_INSERT_ON_RESERVED_SQL, params, 'chainpay_insert_invoices_on_reserved');
  return new Set(rows.map((r) => r.uuid));
}

type Row = Record<string, unknown>;

function toInvoice(r: Row): Invoice {
  const row = new Invoice(
    r.uuid as string,
    r.merchant_id as string,
    r.status as string,
    r.amount as string,
    r.platform_fee as string,
    r.network_fee as string,
    r.pay_amount as string,
    r.merchant_net as string,
    r.fee_payer as FeePayer,
    r.metadata_json as string,
    toDate(r.expires_at),
    toDate(r.created_at),
  );
  return Object.assign(row, {
    orderId: r.order_id,
    title: r.title,
    currency: r.currency,
    network: r.network as NetworkCode | null,
    address: r.address,
    memo: r.memo,
    receivedAmount: r.received_amount,
    confirmations: r.confirmations,
    requiredConfirmations: r.required_confirmations,
    txHash: r.tx_hash,
    paymentUri: r.payment_uri,
    webhookUrl: r.webhook_url,
    returnUrl: r.return_url,
    cancelUrl: r.cancel_url,
    paidAt: toDateOrNull(r.paid_at),
    paidLate: r.paid_late,
    bookedReceived: r.booked_received,
    open: r.open,
    closedAt: toDateOrNull(r.closed_at),
    updatedAt: toDate(r.updated_at),
    version: r.version,
  });
}

function toPayment(invoiceUuid: string, r: Row): InvoicePayment {
  const p = new InvoicePayment(
    invoiceUuid,
    r.network as string,
    r.tx_hash as string,
    r.event_index as number,
    r.from_address as string,
    r.to_address as string,
    r.memo as string | null,
    r.amount as string,
    Number(r.block_height),
    r.block_hash as string,
    toDate(r.seen_at),
  );
  return Object.assign(p, { id: r.id as string, confirmations: r.confirmations as number, state: r.state as PaymentState, late: r.late as boolean });
}

/** The invoice (only if it is this merchant's, when one is named) and its payments; null when not found. */
export async function loadInvoice(
  q: Query,
  where: { uuid: string; merchantId?: string | null } | { merchantId: string; orderId: string },
): Promise<{ row: Invoice; payments: InvoicePayment[] } | null> {
  const rows =
    'orderId' in where
      ? await q<Row>(`${SELECT_SQL} where i.merchant_id = $1 and i.order_id = $2`, [where.merchantId, where.orderId], 'chainpay_invoice_by_order')
      : where.merchantId
        ? await q<Row>(`${SELECT_SQL} where i.uuid = $1 and i.merchant_id = $2`, [where.uuid, where.merchantId], 'chainpay_invoice_of_merchant')
        : await q<Row>(`${SELECT_SQL} where i.uuid = $1`, [where.uuid], 'chainpay_invoice');
  const r = rows[0];
  if (!r) return null;
  const row = toInvoice(r);
  return { row, payments: ((r.payments as Row[] | null) ?? []).map((p) => toPayment(row.uuid, p)) };
}
