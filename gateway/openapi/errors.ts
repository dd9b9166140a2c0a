/**
 * The error side of the OpenAPI document: every status a `/v1` operation can answer with, the error
 * codes of each (an enum, so an undocumented code fails the suite's validation), and the response
 * headers (X-Request-Id on every answer, Retry-After on 429 and on 503 `pool_exhausted`, Allow on
 * 405). The codes follow docs/api.md's error table; the mapping itself lives in gateway/errors.ts.
 */

/** An unparsable HTTP request (bad request line or header), answered before routing (client-error.ts). */
const TRANSPORT_400 = ['malformed_request'];
/** A POST body the gateway or the daemon cannot read (wrong JSON type, missing field, not UTF-8 JSON). */
const BODY_400 = ['malformed_json', 'invalid_body', 'missing_field'];
const AUTH_401 = ['missing_api_key', 'missing_signature', 'invalid_api_key', 'invalid_signature', 'missing_timestamp'];
/** X-Service-Timestamp, on every signed request that carries it. */
const TIMESTAMP_422 = ['invalid_timestamp', 'stale_timestamp'];

/** Semantic refusals of `POST /v1/invoices`. */
export const CREATE_INVOICE_422 = [
  'unknown_field',
  'unsupported_currency',
  'amount_below_minimum',
  'too_many_decimals',
  'invalid_amount',
  'amount_must_be_positive',
  'lifetime_out_of_range',
  'unknown_network',
  'invalid_fee_payer',
  'invalid_webhook_url',
  'invalid_return_url',
  'invalid_cancel_url',
  'metadata_too_large',
  'metadata_too_deep',
  'invalid_metadata',
  'invalid_title',
  'invalid_order_id',
];
/** `POST /v1/invoices/{uuid}/network`: the network, and the amount against its minimum. */
export const SET_NETWORK_422 = ['unknown_field', 'unknown_network', 'amount_below_minimum'];
/** Refusals of `POST /v1/withdrawals` (docs/api.md, Withdrawals, Refusals). */
/** Semantic refusals of `POST /v1/invoices/{uuid}/refunds` (beyond the spec). */
export const CREATE_REFUND_422 = [
  'unknown_field',
  'invalid_address',
  'address_off_curve',
  'address_token_account',
  'too_many_decimals',
  'amount_must_be_positive',
  'memo_not_supported',
  'invalid_memo',
  'invalid_amount',
  'invalid_fee',
  'invalid_reason',
  'invalid_reference',
  'amount_required',
  'nothing_to_refund',
  'refund_exceeds_received',
  'amount_below_minimum',
  'amount_not_above_fee',
  'insufficient_balance',
];

export const CREATE_WITHDRAWAL_422 = [
  'unknown_field',
  'unknown_network',
  'invalid_address',
  'address_off_curve',
  'address_token_account',
  'payee_is_jetton_wallet',
  'invalid_amount',
  'too_many_decimals',
  'amount_must_be_positive',
  'amount_below_minimum',
  'amount_not_above_fee',
  'address_not_whitelisted',
  'address_in_cooldown',
  'insufficient_balance',
  'invalid_reference',
  'memo_not_supported',
  'invalid_memo',
];
/** A list's query: an unknown parameter, or one given twice or with a bad value (`invalid_<parameter>`). */
export const listQuery422 = (key: string): string[] => [
  'unknown_field',
  'invalid_status',
  'invalid_network',
  `invalid_${key}`,
  'invalid_created_from',
  'invalid_created_to',
  'invalid_limit',
  'invalid_cursor',
];

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const errorSchema = (codes: readonly string[]) => ({ $ref: '#/components/schemas/Error', properties: { error: { properties: { code: { enum: [...codes] } } } } });
const json = (schema: unknown) => ({ 'application/json': { schema } });

/** Every answer of the gateway carries X-Request-Id (the one the client sent, if well formed). */
export const REQUEST_ID_HEADER = { 'X-Request-Id': header('XRequestId') };

/** An error response whose `error.code` is one of `codes`. */
export function errorResponse(description: string, codes: readonly string[], headers: Record<string, unknown> = {}): Record<string, unknown> {
  return { description: `${description}. Codes: ${codes.join(', ')}`, headers: { ...REQUEST_ID_HEADER, ...headers }, content: json(errorSchema(codes)) };
}

const INTERNAL_500 = { description: 'Internal error: only an id, the one of the log line with the detail', headers: REQUEST_ID_HEADER, content: json({ $ref: '#/components/schemas/InternalError' }) };

export interface ErrorOptions {
  /** The request is signed (401, and 422 for the timestamp). */
  readonly signed: boolean;
  /** A POST with a JSON body (400 for the body, 413, 415). */
  readonly body?: boolean;
  /** The answer comes from the daemon (503 when it is unreachable, 504 when it is slow). */
  readonly daemon?: boolean;
  readonly notFound?: readonly string[];
  readonly conflict?: readonly string[];
  /** 422 codes beyond the timestamp's. */
  readonly invalid?: readonly string[];
  /** 429 codes beyond `rate_limited`. */
  readonly tooMany?: readonly string[];
  /** 503 codes beyond `service_unavailable`. */
  readonly unavailable?: readonly string[];
}

/** The error responses of one operation, keyed by status. */
export function errorResponses(o: ErrorOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  out['400'] = errorResponse(o.body ? 'Malformed JSON or body, or an unparsable HTTP request' : 'An unparsable HTTP request', o.body ? [...BODY_400, ...TRANSPORT_400] : TRANSPORT_400);
  if (o.signed) out['401'] = errorResponse('Missing or unknown key, bad signature, or no timestamp where the merchant requires one', AUTH_401);
  if (o.notFound) out['404'] = errorResponse('Unknown (or another merchant’s) resource', o.notFound);
  out['408'] = errorResponse('The request was not received in time (the connection is closed)', ['request_timeout']);
  if (o.conflict) out['409'] = errorResponse('The resource’s state forbids it', o.conflict);
  if (o.body) {
    out['413'] = errorResponse('Body over 64 KiB (the connection is closed)', ['payload_too_large']);
    out['415'] = errorResponse('Content-Type is not application/json (UTF-8)', ['unsupported_media_type']);
  }
  const invalid = [...(o.invalid ?? []), ...(o.signed ? TIMESTAMP_422 : [])];
  if (invalid.length > 0) out['422'] = errorResponse('Invalid input (`field` names it)', invalid);
  out['429'] = errorResponse('Rate limited; retry after Retry-After seconds', ['rate_limited', ...(o.tooMany ?? [])], { 'Retry-After': header('RetryAfter') });
  out['431'] = errorResponse('Request headers too large (the connection is closed)', ['headers_too_large']);
  out['500'] = INTERNAL_500;
  if (o.daemon) {
    out['503'] = errorResponse('The daemon is unreachable, or (pool_exhausted) no deposit address came free within 3 s: nothing was written, retry', ['service_unavailable', ...(o.unavailable ?? [])]);
    if (o.unavailable?.includes('pool_exhausted')) (out['503'] as { headers: Record<string, unknown> }).headers['Retry-After'] = header('PoolRetryAfter');
    out['504'] = errorResponse('The daemon did not answer within 15 s', ['timeout']);
  }
  return out;
}

const RETRY_AFTER_SCHEMA = { type: 'string', pattern: '^[1-9][0-9]{0,5}$' };

export const HEADERS = {
  XRequestId: {
    description: 'The request id (the X-Request-Id the client sent when it is 1 to 128 of A-Z a-z 0-9 . _ : -, else a new uuid); the gateway and daemon log lines carry it',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  RetryAfter: { description: 'Seconds to wait before retrying', required: true, schema: RETRY_AFTER_SCHEMA },
  PoolRetryAfter: {
    description: 'Seconds to wait before retrying: sent with pool_exhausted (5), absent with service_unavailable',
    required: false,
    schema: RETRY_AFTER_SCHEMA,
    'x-required-for-codes': ['pool_exhausted'],
  },
  Allow: { description: 'The methods the path takes', required: true, schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' } },
};

/**
 * Answers that belong to no operation: a `/v1` path the document does not list is 404 `not_found`;
 * a listed path with a method it does not take is 405 with Allow naming the methods it takes.
 */
export const RESPONSES = {
  RouteNotFound: errorResponse('No such route under /v1', ['not_found']),
  MethodNotAllowed: errorResponse('The path exists; the method is not one it takes', ['method_not_allowed'], { Allow: header('Allow') }),
};
