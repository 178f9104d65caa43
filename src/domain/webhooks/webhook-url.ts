/**
 * The checks of an endpoint's URL when it is saved (DECISIONS 10): `https` only, no credentials, and a host
 * that resolves only to public addresses (address-guard.ts). The same address check runs again at every
 * connection (src/integrations/webhook-sender), so a name that later resolves elsewhere (DNS rebinding)
 * fails its deliveries. `WEBHOOK_ALLOW_PRIVATE=true` (development, tests) allows `http` and any address.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { refusedRange } from './address-guard.js';

/** Resolves a host name to every address it has. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const resolveWithDns: ResolveHost = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export class WebhookUrlRefusedError extends Error {
  override name = 'WebhookUrlRefusedError';
  constructor(readonly reason: string) {
    super(`webhook URL refused: ${reason}`);
  }
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** @throws WebhookUrlRefusedError with a reason the 422 shows. */
export async function checkWebhookUrl(raw: string, options: { allowPrivate: boolean; resolve?: ResolveHost }): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefusedError('not an absolute URL');
  }
  const schemes = options.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new WebhookUrlRefusedError(options.allowPrivate ? 'the scheme must be https or http' : 'the scheme must be https');
  if (url.username || url.password) throw new WebhookUrlRefusedError('credentials in the URL are not allowed');
  if (url.hash) throw new WebhookUrlRefusedError('a fragment is not allowed');
  if (options.allowPrivate) return url;
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (options.resolve ?? resolveWithDns)(host);
    } catch {
      throw new WebhookUrlRefusedError('the host name does not resolve');
    }
  }
  if (addresses.length === 0) throw new WebhookUrlRefusedError('the host name does not resolve');
  for (const address of addresses) {
    const range = refusedRange(address);
    if (range) throw new WebhookUrlRefusedError(`the host resolves to a non-public address (${range})`);
  }
  return url;
}
