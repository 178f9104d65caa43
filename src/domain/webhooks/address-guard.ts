/**
 * Which addresses a webhook may be delivered to (DECISIONS 10, docs/webhooks.md "SSRF rules"): only public
 * unicast addresses, judged by `ipaddr.js`'s range names rather than a hand-written table. Everything
 * ipaddr.js does not call `unicast` is refused: loopback, private (10/8, 172.16/12, 192.168/16), link-local
 * (169.254/16 with the cloud metadata address 169.254.169.254, fe80::/10), carrier-grade NAT (100.64/10),
 * unique-local (fc00::/7, fd00:ec2::254), multicast, broadcast, unspecified, reserved, documentation and
 * benchmarking ranges, and the IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:0:0/96,
 * 6to4, Teredo, NAT64): a mapped address is refused whatever IPv4 address it carries.
 */
import ipaddr from 'ipaddr.js';

/** @returns null when the address may be used, else the name of the range that refuses it. */
export function refusedRange(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'invalid';
  }
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}
