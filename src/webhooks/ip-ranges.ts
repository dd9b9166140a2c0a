import { isIP } from 'node:net';

/**
 * Which IP addresses a webhook may never be sent to. `forbiddenRange(ip)` names the range an
 * address falls in, or returns null for a public address. IPv6 is an allow-list (global unicast
 * 2000::/3 only, minus the special blocks); IPv6 forms that embed an IPv4 address (mapped,
 * NAT64, 6to4) are judged by the embedded address.
 */
interface Range {
  readonly base: bigint;
  readonly prefix: number;
  readonly label: string;
}

const range = (bits: 32 | 128, text: string, label: string): Range => {
  const [addr, prefix] = text.split('/') as [string, string];
  return { base: bits === 32 ? ipv4ToBigInt(addr)! : ipv6ToBigInt(addr)!, prefix: Number(prefix), label };
};

const V4: readonly Range[] = [
  range(32, '0.0.0.0/8', 'this-network 0.0.0.0/8'),
  range(32, '10.0.0.0/8', 'private (RFC 1918)'),
  range(32, '100.64.0.0/10', 'CGNAT 100.64.0.0/10'),
  range(32, '127.0.0.0/8', 'loopback'),
  range(32, '169.254.0.0/16', 'link-local'),
  range(32, '172.16.0.0/12', 'private (RFC 1918)'),
  range(32, '192.0.0.0/24', 'IETF protocol assignments'),
  range(32, '192.0.2.0/24', 'documentation'),
  range(32, '192.88.99.0/24', '6to4 relay anycast'),
  range(32, '192.168.0.0/16', 'private (RFC 1918)'),
  range(32, '198.18.0.0/15', 'benchmarking'),
  range(32, '198.51.100.0/24', 'documentation'),
  range(32, '203.0.113.0/24', 'documentation'),
  range(32, '224.0.0.0/4', 'multicast'),
  range(32, '240.0.0.0/4', 'reserved'),
];

const V6: readonly Range[] = [
  range(128, '::/128', 'unspecified'),
  range(128, '::1/128', 'loopback'),
  range(128, '::/96', 'IPv4-compatible (deprecated)'),
  range(128, '64:ff9b:1::/48', 'local-use NAT64'),
  range(128, '100::/64', 'discard-only'),
  range(128, '2001::/23', 'IETF protocol assignments'),
  range(128, '2001:db8::/32', 'documentation'),
  range(128, '3fff::/20', 'documentation'),
  range(128, 'fc00::/7', 'unique-local'),
  range(128, 'fe80::/10', 'link-local'),
  range(128, 'fec0::/10', 'site-local (deprecated)'),
  range(128, 'ff00::/8', 'multicast'),
];

/** IPv6 blocks whose low bits carry an IPv4 address: [block, where the IPv4 sits (shift)]. */
const EMBEDS_V4: ReadonlyArray<readonly [Range, bigint, string]> = [
  [range(128, '::ffff:0:0/96', 'IPv4-mapped'), 0n, 'IPv4-mapped'],
  [range(128, '64:ff9b::/96', 'NAT64'), 0n, 'NAT64'],
  [range(128, '2002::/16', '6to4'), 80n, '6to4'],
];

const GLOBAL_UNICAST = range(128, '2000::/3', 'global unicast');

function inRange(value: bigint, bits: number, r: Range): boolean {
  const shift = BigInt(bits - r.prefix);
  return value >> shift === r.base >> shift;
}

export function ipv4ToBigInt(ip: string): bigint | null {
  if (isIP(ip) !== 4) return null;
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

export function ipv6ToBigInt(input: string): bigint | null {
  const ip = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(ip) !== 6) return null;
  const [head, tail] = ip.includes('::') ? (ip.split('::') as [string, string]) : [ip, null];
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':').flatMap((g) => (g.includes('.') ? v4Groups(g) : [g])));
  const left = groups(head);
  const right = tail === null ? [] : groups(tail);
  const all = tail === null ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function v4Groups(dotted: string): string[] {
  const n = ipv4ToBigInt(dotted)!;
  return [(n >> 16n).toString(16), (n & 0xffffn).toString(16)];
}

function v4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 0xffn)).join('.');
}

/** The forbidden range `ip` falls in (a short label), or null when it is a public address. */
export function forbiddenRange(ip: string): string | null {
  const v4 = ipv4ToBigInt(ip);
  if (v4 !== null) return V4.find((r) => inRange(v4, 32, r))?.label ?? null;
  const v6 = ipv6ToBigInt(ip);
  if (v6 === null) return 'not an IP address';
  for (const [block, shift, name] of EMBEDS_V4) {
    if (!inRange(v6, 128, block)) continue;
    const inner = v4Text((v6 >> shift) & 0xffffffffn);
    const label = forbiddenRange(inner);
    return label === null ? null : `${name} ${label}`;
  }
  const special = V6.find((r) => inRange(v6, 128, r));
  if (special) return special.label;
  return inRange(v6, 128, GLOBAL_UNICAST) ? null : 'reserved';
}
