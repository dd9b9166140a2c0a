import { isIP } from 'node:net';
import { ValidationError } from '../domain/errors';
import { systemResolver, type ResolvedAddress, type Resolver } from './address-guard';
import { forbiddenRange } from './ip-ranges';

/** A submitted name is resolved for at most this long; past it the URL is accepted (delivery checks again). */
const RESOLVE_TIMEOUT_MS = 2_000;

export interface SubmissionCheckOptions {
  /** devnet's WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback and private targets allowed (local receivers). */
  readonly allowPrivate: boolean;
  readonly resolver?: Resolver;
}

/**
 * A webhook URL as it is submitted (an invoice's webhook_url, a merchant's): refused with 422
 * `invalid_webhook_url` when its host is a literal address in a range a webhook is never sent to
 * (private, loopback, link-local, CGNAT, ULA, IPv4-mapped, ...: ip-ranges.ts), or a name that
 * resolves now only to such addresses. The merchant hears it at once instead of after ~28 h of
 * refused deliveries. A name that does not resolve now (or not in time) is accepted: the guard at
 * connect time (address-guard.ts) stays the authority, as DNS answers change.
 */
export async function checkSubmittedWebhookUrl(raw: string, options: SubmissionCheckOptions): Promise<void> {
  if (options.allowPrivate) return;
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const label = forbiddenRange(host);
    if (label !== null) throw refused(`webhook_url points to ${host}, ${label}: webhooks are never sent there`);
    return;
  }
  const addresses = await resolveWithin(options.resolver ?? systemResolver, host);
  if (addresses.length === 0) return;
  const labels = addresses.map((a) => forbiddenRange(a.address));
  if (labels.every((l) => l !== null)) throw refused(`webhook_url's host ${host} resolves only to addresses webhooks are never sent to (${addresses[0]!.address}, ${labels[0]})`);
}

function refused(message: string): ValidationError {
  return new ValidationError('invalid_webhook_url', message, 'webhook_url');
}

async function resolveWithin(resolver: Resolver, host: string): Promise<readonly ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<readonly ResolvedAddress[]>((resolve) => {
    timer = setTimeout(() => resolve([]), RESOLVE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([resolver(host).catch((): readonly ResolvedAddress[] => []), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
