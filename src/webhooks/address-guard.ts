import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { forbiddenRange } from './ip-ranges';

/** One resolved address of a webhook host. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a hostname to every address (injectable: tests never query real DNS). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** A webhook target was refused before any byte was sent. `permanent`: retrying cannot help. */
export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly address?: string,
  ) {
    super(message);
  }
}

/** Only https:// URLs with a host are deliverable; anything else is a permanent refusal. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('webhook URL is not a valid URL', true);
  }
  if (url.protocol !== 'https:') throw new TargetRefusedError(`webhook URL must be https (got ${url.protocol.replace(/:$/, '')})`, true);
  if (!url.hostname) throw new TargetRefusedError('webhook URL has no host', true);
  return url;
}

/** Throws when `address` lies in a forbidden range (unless the guard is lifted). */
export function checkAddress(address: string, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const label = forbiddenRange(address);
  if (label !== null) throw new TargetRefusedError(`address ${address} refused: ${label}`, false, address);
}

/**
 * Resolves the URL's host ONCE and checks every address it resolves to (one bad address refuses
 * the host). The connection is then pinned to these addresses (`pinnedLookup`), so a second,
 * different DNS answer (rebinding) can never be what is connected to.
 */
export async function resolveTarget(url: URL, options: { allowPrivate: boolean; resolver?: Resolver }): Promise<ResolvedAddress[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  const addresses: ResolvedAddress[] = literal ? [{ address: host, family: literal === 6 ? 6 : 4 }] : [...(await (options.resolver ?? systemResolver)(host))];
  if (addresses.length === 0) throw new TargetRefusedError(`${host} resolved to no address`, false);
  for (const a of addresses) checkAddress(a.address, options.allowPrivate);
  return addresses;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net/tls/https that answers only with already-checked addresses (no second resolution). */
export function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_hostname: string, options: LookupOptions | number, callback: LookupCallback): void => {
    const opts = typeof options === 'number' ? { family: options } : options;
    const family = opts.family === 4 || opts.family === 6 ? opts.family : opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : 0;
    const list = family ? addresses.filter((a) => a.family === family) : addresses;
    if (list.length === 0) {
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), []);
      return;
    }
    if (opts.all)
      callback(
        null,
        list.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, list[0]!.address, list[0]!.family);
  };
}
