/**
 * Every operation of the `/v1` API by its OpenAPI operationId: method and path template. The
 * client's method of the same name calls it; test/operations.test.ts checks this table (and the
 * methods) against the OpenAPI document, so an endpoint added there without a method here fails.
 */
export const OPERATIONS = {
  getOpenApi: { method: 'GET', path: '/v1/openapi.json' },
  listNetworks: { method: 'GET', path: '/v1/networks' },
  createInvoice: { method: 'POST', path: '/v1/invoices' },
  listInvoices: { method: 'GET', path: '/v1/invoices' },
  getInvoice: { method: 'GET', path: '/v1/invoices/{uuid}' },
  setInvoiceNetwork: { method: 'POST', path: '/v1/invoices/{uuid}/network' },
  cancelInvoice: { method: 'POST', path: '/v1/invoices/{uuid}/cancel' },
  createRefund: { method: 'POST', path: '/v1/invoices/{uuid}/refunds' },
  listInvoiceRefunds: { method: 'GET', path: '/v1/invoices/{uuid}/refunds' },
  getRefund: { method: 'GET', path: '/v1/refunds/{uuid}' },
  cancelRefund: { method: 'POST', path: '/v1/refunds/{uuid}/cancel' },
  createWithdrawal: { method: 'POST', path: '/v1/withdrawals' },
  listWithdrawals: { method: 'GET', path: '/v1/withdrawals' },
  getWithdrawal: { method: 'GET', path: '/v1/withdrawals/{uuid}' },
  getBalance: { method: 'GET', path: '/v1/balance' },
  listEvents: { method: 'GET', path: '/v1/events' },
  redeliverEvent: { method: 'POST', path: '/v1/events/{id}/redeliver' },
  testWebhook: { method: 'POST', path: '/v1/webhooks/test' },
} as const satisfies Record<string, { method: 'GET' | 'POST'; path: string }>;

export type OperationId = keyof typeof OPERATIONS;

/** The path of `operation` with its `{param}`s filled in (each one percent-encoded as one segment). */
export function pathOf(operation: OperationId, params: Readonly<Record<string, string>> = {}): string {
  return OPERATIONS[operation].path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`${operation}: missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}
