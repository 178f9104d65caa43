/**
 * `certdesk keys rotate` and `certdesk keys list`: operator commands for the access-token signing keys.
 * Running instances pick a rotation up within their refresh interval (60 s), and at once for a token
 * naming the new key.
 */
import type { Command } from 'commander';
import type { Config } from '../../config.js';
import { listSigningKeys, type SigningKeyRow } from '../../oauth/keys/signing-key.repository.js';
import { RETIREMENT_SKEW_SECONDS, rotateSigningKey } from '../../oauth/keys/signing-keys.js';
import { configFrom, output, withDatabase } from '../context.js';

export type KeyState = 'signing' | 'published' | 'expired';

export interface KeyListing {
  kid: string;
  alg: string;
  state: KeyState;
  encrypted: boolean;
  created_at: string;
  retired_at: string | null;
  /** Until when a retired key stays in the JWKS (its last tokens' expiry plus skew). */
  published_until: string | null;
}

/** Describes keys newest first; the newest active key is the one that signs. */
export function describeKeys(rows: SigningKeyRow[], config: Pick<Config, 'accessTokenTtlSeconds'>, now = new Date()): KeyListing[] {
  const signingKid = rows.find((r) => r.retiredAt === null)?.kid;
  return rows.map((r) => {
    const until = r.retiredAt ? new Date(r.retiredAt.getTime() + (config.accessTokenTtlSeconds + RETIREMENT_SKEW_SECONDS) * 1000) : null;
    const state: KeyState = r.kid === signingKid ? 'signing' : until && until <= now ? 'expired' : 'published';
    return {
      kid: r.kid,
      alg: r.alg,
      state,
      encrypted: r.encrypted,
      created_at: r.createdAt.toISOString(),
      retired_at: r.retiredAt?.toISOString() ?? null,
      published_until: until?.toISOString() ?? null,
    };
  });
}

function warnIfUnencrypted(config: Config): void {
  if (!config.masterKey && config.env !== 'development' && config.env !== 'test') {
    process.stderr.write('certdesk: warning: MASTER_KEY is not set; the new private key is stored UNENCRYPTED\n');
  }
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('access-token signing keys (ES256, published at /.well-known/jwks.json)');

  keys
    .command('rotate')
    .description('add a new signing key (it signs from now on) and retire the previous one (still published until its tokens expire)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const config = configFrom(command);
      warnIfUnencrypted(config);
      const result = await withDatabase(config, (handle) => rotateSigningKey(handle.db, config.masterKey));
      output(Boolean(opts.json), { kid: result.kid, encrypted: config.masterKey !== null, retired: result.retired }, () =>
        [
          `new signing key ${result.kid}${config.masterKey ? '' : ' (stored unencrypted)'}`,
          ...result.retired.map((kid) => `retired ${kid} (published until its tokens expire)`),
          'running instances switch within 60 s',
        ].join('\n'),
      );
    });

  keys
    .command('list')
    .description('list signing keys, newest first, with their state (signing, published, expired)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const config = configFrom(command);
      const listing = describeKeys(await withDatabase(config, (handle) => listSigningKeys(handle.db)), config);
      output(Boolean(opts.json), listing, () =>
        listing.length === 0
          ? 'no signing keys yet (serve creates the first one)'
          : listing
              .map((k) => `${k.kid}  ${k.alg}  ${k.state.padEnd(9)}  ${k.encrypted ? 'encrypted' : 'UNENCRYPTED'}  created ${k.created_at}${k.retired_at ? `  retired ${k.retired_at}` : ''}`)
              .join('\n'),
      );
    });
}
