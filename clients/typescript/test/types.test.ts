import type {
  Balance,
  CreateInvoice,
  CreateRefund,
  CreateWithdrawal,
  EventPage,
  Invoice,
  InvoiceListItem,
  InvoiceListQuery,
  InvoicePage,
  LoggedEvent,
  RedeliveredEvent,
  Refund,
  WebhookTestResult,
  Withdrawal,
} from '../src';

/**
 * The types come from the generated OpenAPI types by name: if a rename or a generator change
 * turned one into `never` or `any`, or an amount into a number, `npm run typecheck` fails here
 * (the assertions are compile-time; the test below only keeps Jest from reporting an empty file).
 */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;

export type Checks = [
  Assert<Equal<Invoice['amount'], string>>,
  Assert<Equal<Invoice['pay_amount'], string>>,
  Assert<Equal<Invoice['received_amount'], string>>,
  Assert<Equal<Invoice['address'], string | null>>,
  Assert<Equal<Invoice['metadata'], Record<string, unknown>>>,
  Assert<Equal<Invoice['currency'], 'USDT'>>,
  Assert<Equal<CreateInvoice['amount'], string>>,
  Assert<Equal<CreateInvoice['fee_payer'], 'buyer' | 'merchant' | undefined>>,
  Assert<Equal<Withdrawal['amount'], string>>,
  Assert<Equal<Withdrawal['net_payout'], string>>,
  Assert<Equal<CreateWithdrawal['amount'], string>>,
  Assert<Equal<Balance, { available: string; held: string; currency: 'USDT' }>>,
  Assert<Equal<InvoicePage['invoices'], InvoiceListItem[]>>,
  Assert<Equal<InvoiceListItem, Omit<Invoice, 'qr_svg'>>>,
  Assert<Equal<InvoicePage['next_cursor'], string | null>>,
  Assert<Equal<InvoiceListQuery['limit'], number | undefined>>,
  Assert<Equal<EventPage['next_cursor'], string>>,
  Assert<Equal<EventPage['has_more'], boolean>>,
  Assert<Equal<LoggedEvent['data'], Invoice | Withdrawal | Refund>>,
  Assert<Equal<Refund['amount'], string>>,
  Assert<Equal<Refund['fee'], 'deducted' | 'merchant'>>,
  Assert<Equal<CreateRefund['address'], string>>,
  Assert<Equal<RedeliveredEvent['status'], 'pending'>>,
  Assert<Equal<WebhookTestResult['delivered'], boolean>>,
];

describe('generated types', () => {
  it('are checked at compile time (npm run typecheck)', () => {
    const sample: CreateInvoice = { amount: '10.50', metadata: { order: 'A-1', nested: { n: 1 } } };
    expect(typeof sample.amount).toBe('string');
  });
});
