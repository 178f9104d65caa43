/**
 * The DNS lookup of webhook connections: resolves like `dns.lookup`, then refuses the connection when any
 * address the name resolves to is not public (src/domain/webhooks/address-guard.ts). It runs at connect
 * time, for every connection, so a name that resolved to a public address when the endpoint was saved and
 * to 127.0.0.1 later (DNS rebinding) cannot reach the inside.
 */
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { refusedRange } from '../../domain/webhooks/address-guard.js';

export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
  constructor(hostname: string, address: string, range: string) {
    super(`${hostname} resolves to ${address} (${range}): webhooks are delivered to public addresses only`);
  }
}

/** Any address refused → the whole lookup fails (never fall back to another of the name's addresses). */
export function firstRefused(hostname: string, addresses: readonly string[]): RefusedAddressError | null {
  for (const address of addresses) {
    const range = refusedRange(address);
    if (range) return new RefusedAddressError(hostname, address, range);
  }
  return null;
}

type Resolver = (hostname: string, options: LookupOptions & { all: true }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export function guardedLookup(resolve: Resolver = dns.lookup as unknown as Resolver): LookupFunction {
  return ((hostname: string, options: LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '', 0);
      const refused = firstRefused(hostname, addresses.map((a) => a.address));
      if (refused) return callback(refused as unknown as NodeJS.ErrnoException, options.all ? [] : '', 0);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), options.all ? [] : '', 0);
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as LookupFunction;
}
