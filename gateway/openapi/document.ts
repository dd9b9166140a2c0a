import { CREATE_INVOICE_422, CREATE_REFUND_422, CREATE_WITHDRAWAL_422, errorResponse, errorResponses, HEADERS, listQuery422, REQUEST_ID_HEADER, RESPONSES, SET_NETWORK_422 } from './errors';
import { SCHEMAS } from './schemas';
import { WEBHOOKS } from './webhooks';

/**
 * The OpenAPI 3.1 document of the `/v1` surface, served unsigned at `GET /v1/openapi.json`. The
 * test suite validates every `/v1` response it receives against it (test/support/openapi.ts):
 * status, body, Content-Type and the documented headers. Keep it in step with gateway/routes.ts
 * and docs/api.md.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
const ok = (name: string, description: string) => ({ description, headers: REQUEST_ID_HEADER, content: json(name) });
/** An error response; with `codes`, `error.code` is one of them. */
const err = (description: string, codes?: readonly string[]) => (codes ? errorResponse(description, codes) : { description, headers: REQUEST_ID_HEADER, content: json('Error') });

const SIGNED = [
  { serviceKey: [], serviceSignature: [] },
  { serviceKey: [], serviceSignature: [], serviceTimestamp: [] },
];
/** The errors of a signed GET that reads from the daemon (401, 422 timestamp, 429, 400/408/431 transport, 500, 503, 504). */
const COMMON_ERRORS = errorResponses({ signed: true, daemon: true });
const INVOICE_NOT_FOUND = ['invoice_not_found'];
const WITHDRAWAL_NOT_FOUND = ['withdrawal_not_found'];
const uuidParam = { name: 'uuid', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const listParams = (key: string, statuses: readonly string[]) => [
  { name: 'status', in: 'query', schema: { enum: statuses } },
  { name: 'network', in: 'query', schema: ref('NetworkCode') },
  { name: key, in: 'query', schema: { type: 'string', minLength: 1, maxLength: 200 } },
  { name: 'created_from', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'Inclusive' },
  { name: 'created_to', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'Exclusive' },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
  { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'The next_cursor of the previous page, as given' },
];
const body = (name: string) => ({ required: true, content: json(name) });
/** A body with no required field: none at all (and then no Content-Type) means `{}`. */
const optionalBody = (name: string) => ({ required: false, description: 'Optional: no body, sent without Content-Type, is the same as `{}`', content: json(name) });
const statusesOf = (name: string): readonly string[] => (SCHEMAS[name] as { enum: readonly string[] }).enum;

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'chainpay merchant API',
    version: '1',
    description:
      'Self-hosted USDT payments. Reference: docs/api.md. Every answer carries X-Request-Id. Errors are `{"error": {"code", "message", "field"?}}` (a 500: code `internal` and an `id`). ' +
      'A path under /v1 that is not listed here answers 404 `not_found` (components.responses.RouteNotFound); a listed path with a method it does not take answers 405 `method_not_allowed` with Allow (components.responses.MethodNotAllowed).',
  },
  jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
  paths: {
    '/v1/openapi.json': {
      get: { operationId: 'getOpenApi', security: [], responses: { '200': ok('OpenApiDocument', 'This document'), ...errorResponses({ signed: false }) } },
    },
    '/v1/networks': {
      get: { operationId: 'listNetworks', security: [], responses: { '200': ok('NetworkList', 'Active networks'), ...errorResponses({ signed: false, daemon: true }) } },
    },
    '/v1/invoices': {
      post: {
        operationId: 'createInvoice',
        security: SIGNED,
        requestBody: body('CreateInvoice'),
        responses: {
          '200': ok('Invoice', 'The existing invoice for a repeated order_id'),
          '201': ok('Invoice', 'Created'),
          ...errorResponses({ signed: true, body: true, daemon: true, invalid: CREATE_INVOICE_422, unavailable: ['pool_exhausted', 'network_unavailable'] }),
        },
      },
      get: {
        operationId: 'listInvoices',
        security: SIGNED,
        parameters: listParams('order_id', statusesOf('InvoiceStatus')),
        responses: { '200': ok('InvoicePage', 'One page, newest first'), ...errorResponses({ signed: true, daemon: true, invalid: listQuery422('order_id') }) },
      },
    },
    '/v1/invoices/{uuid}': {
      get: {
        operationId: 'getInvoice',
        security: SIGNED,
        parameters: [uuidParam],
        responses: { '200': ok('Invoice', 'The invoice'), ...COMMON_ERRORS, '404': err('Unknown invoice', INVOICE_NOT_FOUND) },
      },
    },
    '/v1/invoices/{uuid}/network': {
      post: {
        operationId: 'setInvoiceNetwork',
        security: SIGNED,
        parameters: [uuidParam],
        requestBody: body('SetInvoiceNetwork'),
        responses: {
          '200': ok('Invoice', 'The invoice on its new network'),
          ...errorResponses({
            signed: true,
            body: true,
            daemon: true,
            notFound: INVOICE_NOT_FOUND,
            conflict: ['network_change_not_allowed'],
            invalid: SET_NETWORK_422,
            tooMany: ['too_many_network_changes'],
            unavailable: ['pool_exhausted', 'network_unavailable'],
          }),
        },
      },
    },
    '/v1/invoices/{uuid}/cancel': {
      post: {
        operationId: 'cancelInvoice',
        security: SIGNED,
        parameters: [uuidParam],
        requestBody: optionalBody('Empty'),
        responses: {
          '200': ok('Invoice', 'Canceled'),
          ...errorResponses({ signed: true, body: true, daemon: true, notFound: INVOICE_NOT_FOUND, conflict: ['cancel_not_allowed'], invalid: ['unknown_field'] }),
        },
      },
    },
    '/v1/invoices/{uuid}/refunds': {
      post: {
        operationId: 'createRefund',
        description: 'Beyond the spec (issue 49): a payout back to the buyer, bounded by what the invoice received less its live refunds',
        security: SIGNED,
        parameters: [uuidParam],
        requestBody: body('CreateRefund'),
        responses: {
          '200': ok('Refund', 'The existing refund for a repeated reference'),
          '201': ok('Refund', 'Created'),
          ...errorResponses({ signed: true, body: true, daemon: true, notFound: INVOICE_NOT_FOUND, conflict: ['invoice_not_refundable', 'network_inactive'], invalid: CREATE_REFUND_422 }),
        },
      },
      get: {
        operationId: 'listInvoiceRefunds',
        security: SIGNED,
        parameters: [uuidParam],
        responses: { '200': ok('RefundList', 'The invoice’s refunds, oldest first'), ...COMMON_ERRORS, '404': err('Unknown invoice', INVOICE_NOT_FOUND) },
      },
    },
    '/v1/refunds/{uuid}': {
      get: {
        operationId: 'getRefund',
        security: SIGNED,
        parameters: [uuidParam],
        responses: { '200': ok('Refund', 'The refund'), ...COMMON_ERRORS, '404': err('Unknown refund', ['refund_not_found']) },
      },
    },
    '/v1/refunds/{uuid}/cancel': {
      post: {
        operationId: 'cancelRefund',
        description: 'Beyond the spec: a refund in review is withdrawn, its hold released (status canceled)',
        security: SIGNED,
        parameters: [uuidParam],
        requestBody: optionalBody('Empty'),
        responses: {
          '200': ok('Refund', 'Canceled'),
          ...errorResponses({ signed: true, body: true, daemon: true, notFound: ['refund_not_found'], conflict: ['refund_not_cancelable'], invalid: ['unknown_field'] }),
        },
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
          ...errorResponses({ signed: true, body: true, daemon: true, invalid: CREATE_WITHDRAWAL_422 }),
        },
      },
      get: {
        operationId: 'listWithdrawals',
        security: SIGNED,
        parameters: listParams('reference', statusesOf('WithdrawalStatus')),
        responses: { '200': ok('WithdrawalPage', 'One page, newest first'), ...errorResponses({ signed: true, daemon: true, invalid: listQuery422('reference') }) },
      },
    },
    '/v1/withdrawals/{uuid}': {
      get: {
        operationId: 'getWithdrawal',
        security: SIGNED,
        parameters: [uuidParam],
        responses: { '200': ok('Withdrawal', 'The withdrawal'), ...COMMON_ERRORS, '404': err('Unknown withdrawal', WITHDRAWAL_NOT_FOUND) },
      },
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
        responses: {
          '200': ok('EventPage', 'The events after the cursor, oldest first'),
          ...errorResponses({ signed: true, daemon: true, invalid: ['unknown_field', 'invalid_cursor', 'invalid_limit'] }),
        },
      },
    },
    '/v1/events/{id}/redeliver': {
      post: {
        operationId: 'redeliverEvent',
        security: SIGNED,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: optionalBody('Empty'),
        responses: {
          '202': ok('RedeliveredEvent', 'Queued for delivery now, with a fresh retry schedule'),
          ...errorResponses({ signed: true, body: true, daemon: true, notFound: ['event_not_found'], conflict: ['webhook_url_not_set'], invalid: ['unknown_field'] }),
        },
      },
    },
    '/v1/webhooks/test': {
      post: {
        operationId: 'testWebhook',
        security: SIGNED,
        requestBody: optionalBody('Empty'),
        responses: {
          '200': ok('WebhookTestResult', 'A signed ping was sent (or refused by the address guard): its outcome'),
          ...errorResponses({ signed: true, body: true, daemon: true, conflict: ['webhook_url_not_set'], invalid: ['unknown_field'] }),
        },
      },
    },
  },
  webhooks: WEBHOOKS,
  components: {
    schemas: SCHEMAS,
    responses: RESPONSES,
    headers: HEADERS,
    securitySchemes: {
      serviceKey: { type: 'apiKey', in: 'header', name: 'X-Service-Key' },
      serviceSignature: { type: 'apiKey', in: 'header', name: 'X-Service-Signature', description: 'Hex HMAC-SHA256 of the body, or of timestamp.method.path.body with X-Service-Timestamp' },
      serviceTimestamp: { type: 'apiKey', in: 'header', name: 'X-Service-Timestamp', description: 'Unix seconds, within ±300 s' },
    },
  },
} as const;
