import { SCHEMAS } from './schemas';

/**
 * The OpenAPI 3.1 document of the `/v1` surface, served unsigned at `GET /v1/openapi.json`. The
 * test suite validates REST responses against it (test/support/openapi.ts): keep it in step with
 * gateway/routes.ts and docs/api.md.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
const ok = (name: string, description: string) => ({ description, content: json(name) });
const err = (description: string) => ({ description, content: json('Error') });

const SIGNED = [
  { serviceKey: [], serviceSignature: [] },
  { serviceKey: [], serviceSignature: [], serviceTimestamp: [] },
];
const COMMON_ERRORS = {
  '401': err('Missing or unknown key, bad signature, or missing timestamp where required'),
  '422': err('Invalid field, unknown field, invalid or stale timestamp'),
  '429': err('Rate limited (Retry-After)'),
};
const uuidParam = { name: 'uuid', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const listParams = (key: string) => [
  { name: 'status', in: 'query', schema: { type: 'string' } },
  { name: 'network', in: 'query', schema: { type: 'string' } },
  { name: key, in: 'query', schema: { type: 'string' } },
  { name: 'created_from', in: 'query', schema: { type: 'string', format: 'date-time' } },
  { name: 'created_to', in: 'query', schema: { type: 'string', format: 'date-time' } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
  { name: 'cursor', in: 'query', schema: { type: 'string' } },
];
const body = (name: string) => ({ required: true, content: json(name) });

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'chainpay merchant API', version: '1', description: 'Self-hosted USDT payments. Reference: docs/api.md.' },
  jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
  paths: {
    '/v1/openapi.json': { get: { operationId: 'getOpenApi', security: [], responses: { '200': { description: 'This document' } } } },
    '/v1/networks': { get: { operationId: 'listNetworks', security: [], responses: { '200': ok('NetworkList', 'Active networks') } } },
    '/v1/invoices': {
      post: {
        operationId: 'createInvoice',
        security: SIGNED,
        requestBody: body('CreateInvoice'),
        responses: {
          '200': ok('Invoice', 'The existing invoice for a repeated order_id'),
          '201': ok('Invoice', 'Created'),
          ...COMMON_ERRORS,
          '400': err('Malformed JSON'),
          '413': err('Body over 64 KiB'),
          '415': err('Not application/json'),
        },
      },
      get: { operationId: 'listInvoices', security: SIGNED, parameters: listParams('order_id'), responses: { '200': ok('InvoicePage', 'One page, newest first'), ...COMMON_ERRORS } },
    },
    '/v1/invoices/{uuid}': {
      get: { operationId: 'getInvoice', security: SIGNED, parameters: [uuidParam], responses: { '200': ok('Invoice', 'The invoice'), '404': err('Unknown invoice'), ...COMMON_ERRORS } },
    },
    '/v1/invoices/{uuid}/network': {
      post: {
        operationId: 'setInvoiceNetwork',
        security: SIGNED,
        parameters: [uuidParam],
        requestBody: body('SetInvoiceNetwork'),
        responses: { '200': ok('Invoice', 'The invoice on its new network'), '404': err('Unknown invoice'), '409': err('network_change_not_allowed'), ...COMMON_ERRORS },
      },
    },
    '/v1/invoices/{uuid}/cancel': {
      post: {
        operationId: 'cancelInvoice',
        security: SIGNED,
        parameters: [uuidParam],
        requestBody: body('Empty'),
        responses: { '200': ok('Invoice', 'Canceled'), '404': err('Unknown invoice'), '409': err('cancel_not_allowed'), ...COMMON_ERRORS },
      },
    },
    '/v1/withdrawals': {
      post: {
        operationId: 'createWithdrawal',
        security: SIGNED,
        requestBody: body('CreateWithdrawal'),
        responses: {
          '200': ok('Withdrawal', 'The existing withdrawal for a repeated reference'),
          '201': ok('Withdrawal', 'Created'),
          '403': err('Not whitelisted'),
          '409': err('Insufficient balance'),
          ...COMMON_ERRORS,
        },
      },
      get: { operationId: 'listWithdrawals', security: SIGNED, parameters: listParams('reference'), responses: { '200': ok('WithdrawalPage', 'One page, newest first'), ...COMMON_ERRORS } },
    },
    '/v1/withdrawals/{uuid}': {
      get: { operationId: 'getWithdrawal', security: SIGNED, parameters: [uuidParam], responses: { '200': ok('Withdrawal', 'The withdrawal'), '404': err('Unknown withdrawal'), ...COMMON_ERRORS } },
    },
    '/v1/balance': { get: { operationId: 'getBalance', security: SIGNED, responses: { '200': ok('Balance', 'The merchant balance'), ...COMMON_ERRORS } } },
    '/v1/events': {
      get: {
        operationId: 'listEvents',
        security: SIGNED,
        description: "The merchant's webhook events in one total order (docs/webhooks.md); poll from next_cursor",
        parameters: [
          { name: 'after', in: 'query', schema: { type: 'string' }, description: 'The next_cursor of the previous page; the start of the log when absent' },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
        ],
        responses: { '200': ok('EventPage', 'The events after the cursor, oldest first'), ...COMMON_ERRORS },
      },
    },
    '/v1/events/{id}/redeliver': {
      post: {
        operationId: 'redeliverEvent',
        security: SIGNED,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: body('Empty'),
        responses: {
          '202': ok('RedeliveredEvent', 'Queued for delivery now, with a fresh retry schedule'),
          '404': err("Unknown event (or another merchant's): event_not_found"),
          '409': err('webhook_url_not_set'),
          ...COMMON_ERRORS,
        },
      },
    },
    '/v1/webhooks/test': {
      post: {
        operationId: 'testWebhook',
        security: SIGNED,
        requestBody: body('Empty'),
        responses: { '200': ok('WebhookTestResult', 'A signed ping was sent (or refused by the address guard): its outcome'), '409': err('webhook_url_not_set'), ...COMMON_ERRORS },
      },
    },
  },
  webhooks: {
    invoiceEvent: { post: { requestBody: body('InvoiceEvent'), responses: { '200': { description: 'Any 2xx acknowledges' } } } },
    withdrawalEvent: { post: { requestBody: body('WithdrawalEvent'), responses: { '200': { description: 'Any 2xx acknowledges' } } } },
    pingEvent: { post: { description: 'Sent only by POST /v1/webhooks/test', requestBody: body('PingEvent'), responses: { '200': { description: 'Any 2xx acknowledges' } } } },
  },
  components: {
    schemas: SCHEMAS,
    securitySchemes: {
      serviceKey: { type: 'apiKey', in: 'header', name: 'X-Service-Key' },
      serviceSignature: { type: 'apiKey', in: 'header', name: 'X-Service-Signature', description: 'Hex HMAC-SHA256 of the body, or of timestamp.method.path.body with X-Service-Timestamp' },
      serviceTimestamp: { type: 'apiKey', in: 'header', name: 'X-Service-Timestamp', description: 'Unix seconds, within ±300 s' },
    },
  },
} as const;
