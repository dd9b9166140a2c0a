/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of the REST bodies: components of the document in
 * document.ts. Responses are closed (`additionalProperties: false`) so a field that drifts from
 * the document fails validation. Amounts are decimal strings, never JSON numbers.
 */
const decimal = { type: 'string', pattern: '^\\d+(\\.\\d+)?$', description: 'A decimal amount as a string' } as const;
const time = { type: 'string', format: 'date-time' } as const;
const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });

// The gateway may not import src/domain: these lists are checked against the domain's by test/merchant/openapi.test.ts.
export const INVOICE_STATUS_VALUES = ['pending', 'confirming', 'partially_paid', 'paid', 'overpaid', 'underpaid', 'expired', 'canceled'];
export const WITHDRAWAL_STATUS_VALUES = ['review', 'processing', 'completed', 'rejected', 'failed'];
/** Refund statuses (issue 49); awaiting_claim, expired and canceled belong to the claim link and cancel, not built yet. */
/** refund.created at creation, then one per status change the withdrawal actor commits. */
export const REFUND_EVENT_TYPES = ['refund.created', 'refund.processing', 'refund.completed', 'refund.rejected', 'refund.failed', 'refund.expired', 'refund.canceled'];
export const REFUND_STATUS_VALUES = ['awaiting_claim', 'review', 'processing', 'completed', 'rejected', 'failed', 'expired', 'canceled'];
export const NETWORK_CODE_VALUES = ['TRC20', 'BEP20', 'TON', 'POLYGON', 'ARBITRUM', 'SOLANA'];
const networkCode = { $ref: '#/components/schemas/NetworkCode' } as const;
const uuid = { type: 'string', format: 'uuid' } as const;
/** Event ids: "evt_" and 24 hex digits (src/webhooks/event-id.ts); also the webhook-id header. */
export const EVENT_ID_PATTERN = '^evt_[0-9a-f]{24}$';

/** invoice.<status> for every status but pending, and the two events that are not a status. */
export const INVOICE_EVENT_TYPES = [...INVOICE_STATUS_VALUES.filter((s) => s !== 'pending').map((s) => `invoice.${s}`), 'invoice.paid_late', 'invoice.reverted'];

function closed(properties: Record<string, unknown>, optional: readonly string[] = []): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, required: Object.keys(properties).filter((k) => !optional.includes(k)), properties };
}

/** The Invoice object's fields, in the order the service writes them. */
const INVOICE_PROPERTIES: Record<string, unknown> = {
  uuid,
  status: { $ref: '#/components/schemas/InvoiceStatus' },
  order_id: nullable('string'),
  title: nullable('string'),
  amount: decimal,
  currency: { const: 'USDT' },
  platform_fee: decimal,
  network_fee: decimal,
  pay_amount: decimal,
  merchant_net: decimal,
  fee_payer: { enum: ['buyer', 'merchant'] },
  network: { oneOf: [networkCode, { type: 'null' }], description: 'null until a network is chosen' },
  address: nullable('string', { description: 'null until a network is chosen; the shared address on TON' }),
  memo: nullable('string', { description: 'The memo to put in the comment on TON; null elsewhere' }),
  checkout_url: { type: 'string', format: 'uri', pattern: '/pay/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' },
  qr_svg: { type: 'string', pattern: '^(<svg[\\s\\S]*)?$', description: 'SVG of the payment link; empty while no network is chosen. Not in lists (InvoiceListItem)' },
  received_amount: decimal,
  confirmations: { type: 'integer', minimum: 0, description: 'The smallest `confirmations` of the payments not reverted (0 before any): required_confirmations once all are confirmed' },
  required_confirmations: { type: 'integer', minimum: 0 },
  tx_hash: nullable('string'),
  metadata: { type: 'object' },
  expires_at: time,
  paid_at: nullable('string', { format: 'date-time' }),
  created_at: time,
  paid_late: { type: 'boolean' },
  payments: { type: 'array', items: { $ref: '#/components/schemas/Payment' } },
  return_url: nullable('string'),
  cancel_url: nullable('string'),
  livemode: { type: 'boolean' },
};

export const SCHEMAS: Record<string, unknown> = {
  NetworkCode: { enum: NETWORK_CODE_VALUES },
  InvoiceStatus: { enum: INVOICE_STATUS_VALUES },
  WithdrawalStatus: { enum: WITHDRAWAL_STATUS_VALUES },
  Network: closed({
    code: networkCode,
    name: { type: 'string' },
    buyer_network_fee: decimal,
    withdrawal_fee: decimal,
    min_invoice: decimal,
    min_withdrawal: decimal,
    required_confirmations: { type: 'integer', minimum: 0 },
    deposit_mode: { enum: ['address_pool', 'master_memo'], description: 'address_pool: an address per invoice; master_memo (TON): a shared address and a per-invoice memo' },
  }),
  Payment: closed({
    tx_hash: { type: 'string' },
    event_index: { type: 'integer', minimum: 0 },
    from: { type: 'string' },
    amount: decimal,
    confirmations: { type: 'integer', minimum: 0, description: 'Counted up to the invoice’s required_confirmations and not beyond' },
    status: { enum: ['confirming', 'confirmed', 'reverted'] },
  }),
  Invoice: closed(INVOICE_PROPERTIES),
  /** An invoice in a list (GET /v1/invoices): the Invoice without `qr_svg` (~5 KB each); GET /v1/invoices/{uuid} has it. */
  InvoiceListItem: closed(Object.fromEntries(Object.entries(INVOICE_PROPERTIES).filter(([k]) => k !== 'qr_svg'))),
  Withdrawal: closed({
    uuid,
    reference: nullable('string'),
    status: { $ref: '#/components/schemas/WithdrawalStatus' },
    network: networkCode,
    address: { type: 'string' },
    amount: decimal,
    network_fee: decimal,
    net_payout: decimal,
    tx_hash: nullable('string'),
    rejection_reason: nullable('string', { description: 'The operator’s reason; null unless rejected' }),
    failure_reason: nullable('string', { description: '`<code>: <what happened>`; null unless failed' }),
    created_at: time,
    completed_at: nullable('string', { format: 'date-time' }),
    livemode: { type: 'boolean' },
    memo: nullable('string', { description: 'Beyond the spec (TON only): the text comment the payout carries (its own memo or its whitelist entry’s); null elsewhere' }),
  }),
  RefundStatus: { enum: REFUND_STATUS_VALUES },
  /** Beyond the spec (issue 49). */
  Refund: closed({
    uuid,
    invoice_uuid: uuid,
    reference: nullable('string'),
    status: { $ref: '#/components/schemas/RefundStatus' },
    network: networkCode,
    address: { type: 'string' },
    memo: nullable('string', { description: 'TON only: the payout’s text comment' }),
    amount: { ...decimal, description: 'What counts against what the invoice received' },
    fee: { enum: ['deducted', 'merchant'], description: 'deducted: the buyer receives amount − network_fee; merchant: the buyer receives amount, the balance pays amount + network_fee' },
    network_fee: decimal,
    net_payout: { ...decimal, description: 'What reaches the buyer’s address' },
    reason: nullable('string'),
    tx_hash: nullable('string'),
    rejection_reason: nullable('string', { description: 'The operator’s reason; null unless rejected' }),
    failure_reason: nullable('string', { description: '`<code>: <what happened>`; null unless failed' }),
    created_at: time,
    completed_at: nullable('string', { format: 'date-time' }),
    livemode: { type: 'boolean' },
  }),
  RefundList: closed({ refunds: { type: 'array', items: { $ref: '#/components/schemas/Refund' } } }),
  CreateRefund: {
    type: 'object',
    additionalProperties: false,
    required: ['address'],
    properties: {
      amount: { ...decimal, description: 'Default by invoice status: overpaid → the excess; underpaid, expired with payment, late or canceled → everything received; paid → required' },
      address: { type: 'string', description: 'The buyer’s address on the invoice’s network (not whitelisted: refunds have their own caps and review)' },
      memo: { type: 'string', minLength: 1, maxLength: 120, description: 'TON only' },
      reason: { type: 'string', minLength: 1, maxLength: 500 },
      reference: { type: 'string', minLength: 1, maxLength: 200, description: 'Idempotency key: a repeat answers 200 with the original' },
      fee: { enum: ['deducted', 'merchant'], default: 'deducted' },
    },
  },
  Balance: closed({ available: decimal, held: decimal, currency: { const: 'USDT' } }),
  NetworkList: closed({ networks: { type: 'array', items: { $ref: '#/components/schemas/Network' } }, livemode: { type: 'boolean' } }),
  InvoicePage: closed({ invoices: { type: 'array', items: { $ref: '#/components/schemas/InvoiceListItem' } }, next_cursor: nullable('string') }),
  WithdrawalPage: closed({ withdrawals: { type: 'array', items: { $ref: '#/components/schemas/Withdrawal' } }, next_cursor: nullable('string') }),
  Error: closed({
    error: closed({ code: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' }, message: { type: 'string', minLength: 1 }, field: { type: 'string', description: 'The input at fault, when one is' } }, [
      'field',
    ]),
  }),
  InternalError: closed({
    error: closed({ code: { const: 'internal' }, message: { const: 'internal error' }, id: { type: 'string', minLength: 1, description: 'The id of the log line with the detail (the request id)' } }),
  }),
  OpenApiDocument: {
    type: 'object',
    required: ['openapi', 'info', 'paths', 'webhooks', 'components'],
    properties: { openapi: { const: '3.1.0' } },
    description: 'This document (gateway/openapi/document.ts)',
  },
  CreateInvoice: {
    type: 'object',
    additionalProperties: false,
    required: ['amount'],
    properties: {
      amount: decimal,
      currency: { const: 'USDT' },
      order_id: { type: 'string', minLength: 1, maxLength: 200 },
      title: { type: 'string' },
      network: { type: 'string' },
      fee_payer: { enum: ['buyer', 'merchant'] },
      lifetime_minutes: { type: 'integer', minimum: 5, maximum: 10080 },
      webhook_url: { type: 'string' },
      return_url: { type: 'string' },
      cancel_url: { type: 'string' },
      metadata: { type: 'object' },
    },
  },
  SetInvoiceNetwork: { type: 'object', additionalProperties: false, required: ['network'], properties: { network: { type: 'string' } } },
  Empty: { type: 'object', additionalProperties: false, properties: {} },
  CreateWithdrawal: {
    type: 'object',
    additionalProperties: false,
    required: ['network', 'address', 'amount'],
    properties: {
      network: { type: 'string' },
      address: { type: 'string' },
      amount: decimal,
      reference: { type: 'string' },
      memo: { type: 'string', minLength: 1, maxLength: 120, description: 'TON only (422 memo_not_supported elsewhere): the payout’s text comment, 1 to 120 characters, no control characters' },
    },
  },
  InvoiceEvent: closed({
    id: { type: 'string', pattern: EVENT_ID_PATTERN },
    type: { enum: INVOICE_EVENT_TYPES },
    created_at: time,
    data: { $ref: '#/components/schemas/Invoice' },
  }),
  WithdrawalEvent: closed({
    id: { type: 'string', pattern: EVENT_ID_PATTERN },
    type: { enum: WITHDRAWAL_STATUS_VALUES.map((s) => `withdrawal.${s}`) },
    created_at: time,
    data: { $ref: '#/components/schemas/Withdrawal' },
  }),
  /** Beyond the spec (issue 49). */
  RefundEvent: closed({
    id: { type: 'string', pattern: EVENT_ID_PATTERN },
    type: { enum: REFUND_EVENT_TYPES },
    created_at: time,
    data: { $ref: '#/components/schemas/Refund' },
  }),
  // Beyond the spec: the event log, redelivery and the test ping (docs/webhooks.md).
  EventPage: closed({
    events: {
      type: 'array',
      items: { oneOf: [{ $ref: '#/components/schemas/InvoiceEvent' }, { $ref: '#/components/schemas/WithdrawalEvent' }, { $ref: '#/components/schemas/RefundEvent' }] },
    },
    next_cursor: { type: 'string', minLength: 1 },
    has_more: { type: 'boolean' },
  }),
  RedeliveredEvent: closed({ id: { type: 'string', pattern: EVENT_ID_PATTERN }, type: { type: 'string' }, status: { const: 'pending' } }),
  PingEvent: closed({
    id: { type: 'string', pattern: EVENT_ID_PATTERN },
    type: { const: 'ping' },
    created_at: time,
    data: closed({ merchant_id: { type: 'string', format: 'uuid' } }),
  }),
  WebhookTestResult: closed({
    delivered: { type: 'boolean' },
    url: { type: 'string' },
    status_code: nullable('integer'),
    latency_ms: { type: 'integer', minimum: 0 },
    error: nullable('string'),
    event: { $ref: '#/components/schemas/PingEvent' },
  }),
};
