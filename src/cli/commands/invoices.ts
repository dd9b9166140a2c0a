import type { Invoice, InvoiceUpdate } from '../../grpc/generated/chainpay/v1/invoices';
import { fields, table } from '../output';
import { LIMIT, type CommandSpec } from '../command';

const INVOICE_FIELDS = [
  'uuid',
  'merchant_id',
  'status',
  'order_id',
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
  'paid_late',
  'checkout_url',
  'payment_uri',
  'webhook_url',
  'metadata_json',
  'expires_at',
  'paid_at',
  'created_at',
] as const;

function showInvoice(inv: Invoice): string {
  const payments = inv.payments.length ? `\n\npayments:\n${table(inv.payments, ['tx_hash', 'event_index', 'from', 'amount', 'confirmations', 'status', 'block_height', 'seen_at'])}` : '';
  return fields(inv, INVOICE_FIELDS) + payments;
}

/** One line per update: what changed and where the invoice stands. */
function updateLine(u: InvoiceUpdate): string {
  const inv = u.invoice;
  if (!inv) return u.reason;
  const conf = inv.required_confirmations ? ` conf=${inv.confirmations}/${inv.required_confirmations}` : '';
  return `${u.reason.padEnd(13)} ${inv.status.padEnd(14)} received=${inv.received_amount}/${inv.pay_amount}${conf} network=${inv.network ?? '-'}`;
}

export const invoiceCommands: readonly CommandSpec[] = [
  {
    name: 'invoices show',
    usage: 'UUID',
    summary: 'show one invoice with its payments',
    positionals: ['UUID'],
    async run({ args, rpc, out }) {
      const c = rpc.invoices;
      const inv = await rpc.call(c, c.getInvoice, { uuid: args.pos(0) });
      out.result(inv, () => showInvoice(inv));
    },
  },
  {
    name: 'invoices list',
    usage: '--merchant ID [--status S] [--limit N]',
    summary: "list a merchant's invoices, newest first",
    options: { merchant: { type: 'string', required: true }, status: { type: 'string' }, ...LIMIT },
    async run({ args, rpc, out }) {
      const c = rpc.invoices;
      const merchant = args.str('merchant');
      const req = { merchant_id: merchant, status: args.opt('status'), limit: args.int32('limit') ?? 0 };
      const res = await rpc.call(c, c.listInvoices, req, { 'x-merchant-id': merchant });
      out.result(res, () => table(res.invoices, ['uuid', 'status', 'amount', 'pay_amount', 'received_amount', 'network', 'order_id', 'created_at']));
    },
  },
  {
    name: 'invoices watch',
    usage: 'UUID',
    summary: 'stream an invoice until it is final (one JSON line per update with --json)',
    positionals: ['UUID'],
    async run({ args, rpc, out, io }) {
      const c = rpc.invoices;
      await rpc.stream(c, c.watchInvoice, { uuid: args.pos(0) }, (u) => out.update(u, () => updateLine(u)), { signal: io.signal });
    },
  },
];
