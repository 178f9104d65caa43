/**
 * Which `X-Forwarded-For` entries to believe. With N trusted proxies in front, the socket peer is the
 * nearest proxy and each proxy appends the address it received from: the N nearest hops (the socket and
 * the N−1 right-most entries) are ours, and the client address is the next one to the left, the
 * right-most entry no trusted proxy added. Entries further left are the caller's own words and never
 * believed, so a caller can neither rotate its address nor claim somebody else's.
 * (What Fastify's numeric `trustProxy` does; its types only admit the function form.)
 */
export type TrustProxy = false | ((address: string, hop: number) => boolean);

export function trustProxyFor(trustedProxyHops: number): TrustProxy {
  if (trustedProxyHops <= 0) return false;
  return (_address, hop) => hop < trustedProxyHops;
}
