import { BlockList, isIP } from 'node:net';

/**
 * Which IP addresses a webhook may never be sent to. `forbiddenRange(ip)` names the range an
 * address falls in, or returns null for a public address. IPv6 is an allow-list (global unicast
 * 2000::/3 only, minus the special blocks); IPv6 forms that embed an IPv4 address (mapped,
 * NAT64, 6to4) are judged by the embedded address. Addresses are matched by node:net's BlockList,
 * which parses every text form of an address (compressed, dotted tail, leading zeros).
 */
type Subnet = readonly [network: string, prefix: number, label: string];

const V4: readonly Subnet[] = [
  ['0.0.0.0', 8, 'this-network 0.0.0.0/8'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'CGNAT 100.64.0.0/10'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** In this order: the first match names the range (::/128 and ::1/128 lie inside ::/96). */
const V6: readonly Subnet[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 23, 'IETF protocol assignments'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

/** The two 16-bit groups of a dotted IPv4 address of the table above, as IPv6 text ("10.0.0.0" -> "a00:0"). */
function v4Groups(dotted: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * IPv6 blocks whose bits carry an IPv4 address: the block, and where a V4 subnet lies inside it
 * (its IPv6 network and the bits in front of the IPv4 address).
 */
const EMBEDS_V4: ReadonlyArray<{ readonly name: string; readonly block: Subnet; readonly inner: (v4: string) => string; readonly bitsBefore: number }> = [
  { name: 'IPv4-mapped', block: ['::ffff:0:0', 96, 'IPv4-mapped'], inner: (v4) => `::ffff:${v4Groups(v4)}`, bitsBefore: 96 },
  { name: 'NAT64', block: ['64:ff9b::', 96, 'NAT64'], inner: (v4) => `64:ff9b::${v4Groups(v4)}`, bitsBefore: 96 },
  { name: '6to4', block: ['2002::', 16, '6to4'], inner: (v4) => `2002:${v4Groups(v4)}::`, bitsBefore: 16 },
];

/** One BlockList per labelled subnet: BlockList answers whether, the label says which. */
interface Rule {
  readonly list: BlockList;
  readonly label: string;
}

function rule(family: 'ipv4' | 'ipv6', [network, prefix, label]: Subnet): Rule {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, label };
}

const V4_RULES = V4.map((s) => rule('ipv4', s));
const V6_RULES = V6.map((s) => rule('ipv6', s));
const EMBED_RULES = EMBEDS_V4.map((e) => ({
  block: rule('ipv6', e.block).list,
  // The embedded forbidden ranges, as IPv6 subnets of the block: labelled "<name> <IPv4 label>".
  rules: V4.map(([network, prefix, label]) => rule('ipv6', [e.inner(network), e.bitsBefore + prefix, `${e.name} ${label}`])),
}));
const GLOBAL_UNICAST = rule('ipv6', ['2000::', 3, 'global unicast']).list;

const firstMatch = (rules: readonly Rule[], ip: string, family: 'ipv4' | 'ipv6'): string | null => rules.find((r) => r.list.check(ip, family))?.label ?? null;

/** The forbidden range `ip` falls in (a short label), or null when it is a public address. */
export function forbiddenRange(input: string): string | null {
  // A bracketed literal ("[::1]") or a zone id ("fe80::1%eth0") is the same address to connect to.
  const ip = input.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return firstMatch(V4_RULES, ip, 'ipv4');
  if (family !== 6) return 'not an IP address';
  for (const embed of EMBED_RULES) {
    // Inside such a block the embedded IPv4 address alone decides, also when it is public.
    if (embed.block.check(ip, 'ipv6')) return firstMatch(embed.rules, ip, 'ipv6');
  }
  return firstMatch(V6_RULES, ip, 'ipv6') ?? (GLOBAL_UNICAST.check(ip, 'ipv6') ? null : 'reserved');
}
