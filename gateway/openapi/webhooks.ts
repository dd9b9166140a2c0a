import { EVENT_ID_PATTERN } from './schemas';

/**
 * The `webhooks` of the OpenAPI document: what chainpay POSTs to the merchant's endpoint
 * (docs/webhooks.md). The suite's test receiver validates every event it gets against these
 * (test/webhooks/support.ts).
 */
const HEADERS = [
  { name: 'X-Service-Signature', in: 'header', required: true, description: 'Hex HMAC-SHA256 of the raw body, keyed with the API secret', schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
  { name: 'webhook-id', in: 'header', required: true, description: 'The event id (Standard Webhooks)', schema: { type: 'string', pattern: EVENT_ID_PATTERN } },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds when this attempt was signed', schema: { type: 'string', pattern: '^[0-9]{1,12}$' } },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description: 'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>"> keyed with the webhook secret; space-separated when several',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  },
];

const event = (schema: string, description: string) => ({
  post: {
    description,
    parameters: HEADERS,
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } },
    responses: { '2XX': { description: 'Acknowledged (within 15 s). Anything else, a timeout or a redirect is a failed attempt, retried with backoff' } },
  },
});

export const WEBHOOKS = {
  invoiceEvent: event('InvoiceEvent', 'An invoice changed: sent to the invoice’s webhook_url, else the merchant’s'),
  withdrawalEvent: event('WithdrawalEvent', 'A withdrawal changed status: sent to the merchant’s webhook URL'),
  refundEvent: event('RefundEvent', 'A refund was created or changed status (beyond the spec): sent to the merchant’s webhook URL'),
  pingEvent: event('PingEvent', 'Sent only by POST /v1/webhooks/test, to the merchant’s webhook URL'),
};
