/**
 * @chainpay/client: a typed client for the chainpay merchant API (no runtime dependencies; Node 20+).
 * See README.md.
 */
export { ChainpayClient, type ChainpayClientOptions } from './client';
export { ChainpayError } from './errors';
export { OPERATIONS, type OperationId } from './operations';
export { CursorList, type Page } from './pagination';
export { signBody, signRequest, signTimestamped, type SigningScheme, type SignRequestInput, type TimestampedParts } from './signing';
export type { ClientOptions } from './transport';
export type * from './types';
export type { components, operations, paths } from './generated/openapi';
export {
  assertServiceSignature,
  assertStandardWebhook,
  DEFAULT_TOLERANCE_S,
  isInvoiceEvent,
  isPingEvent,
  isWithdrawalEvent,
  verifyServiceSignature,
  verifyStandardWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type StandardWebhookOptions,
  type VerifyWebhookInput,
  type WebhookHeaders,
} from './webhooks';
