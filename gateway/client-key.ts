import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** Which request counts against which rate-limit bucket. */
export type ClientKey = (req: IncomingMessage) => string;

/** `::ffff:10.0.0.1` → `10.0.0.1`; `[::1]:443` / `1.2.3.4:80` → the bare address; else trimmed. */
function bareAddress(raw: string): string {
  let a = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return (mapped ? mapped[1]! : a).toLowerCase();
}

/**
 * The proxies whose `X-Forwarded-For` is believed: `TRUSTED_PROXY`, a comma-separated list of
 * addresses and CIDR ranges (e.g. `10.0.0.0/8, 127.0.0.1, fd00::/8`). Throws naming the bad entry.
 */
export function parseTrustedProxies(value: string): BlockList {
  const list = new BlockList();
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('TRUSTED_PROXY: no address given');
  for (const entry of entries) {
    const [addr = '', bits, extra] = entry.split('/');
    const a = bareAddress(addr);
    const family = isIP(a);
    if (!family || extra !== undefined) throw new Error(`TRUSTED_PROXY: not an address or CIDR range: ${entry}`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
      list.addAddress(a, type);
      continue;
    }
    const prefix = Number(bits);
    if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`TRUSTED_PROXY: bad prefix length in ${entry}`);
    list.addSubnet(a, prefix, type);
  }
  return list;
}

function trusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client address a request counts against.
 *
 * Without trusted proxies: the socket peer (X-Forwarded-For is ignored, anyone can send it).
 * With them: when the peer is a trusted proxy, the right-most X-Forwarded-For entry that is not a
 * trusted proxy: every entry right of it was appended by a proxy we trust, so it cannot have been
 * made up by the client, while entries further left can (a buyer cannot pick someone else's bucket
 * or a fresh one per request). All entries trusted: the left-most. A peer that is not a trusted
 * proxy is the client, whatever its headers say.
 */
export function clientKeyFor(trustedProxies: BlockList | undefined): ClientKey {
  return (req) => {
    const peer = bareAddress(req.socket.remoteAddress ?? '');
    if (!peer) return 'unknown';
    if (!trustedProxies || !trusted(trustedProxies, peer)) return peer;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map(bareAddress).filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      if (!trusted(trustedProxies, hops[i]!)) return hops[i]!;
    }
    return hops[0] ?? peer;
  };
}
