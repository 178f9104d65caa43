/**
 * `certdesk keys rotate` and `certdesk keys list`: operator commands for the access-token signing keys.
 * Running instances pick a rotation up within their refresh interval (60 s), and at once for a token
 * naming the new key.
 */
import type { Command } from 'commander';
import type { Config } from '../../config.js';
import { listCertificateSigningKids, listSigningKeys, type SigningKeyRow } from '../../oauth/keys/signing-key.repository.js';
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
  /** Until when a retired key stays in the JWKS (its last tokens' expiry plus skew); null: for good. */
  published_until: string | null;
  /** Whether the key signed a certificate: then it stays published for good (DECISIONS 9). */
  signed_certificates: boolean;
}

/**
 * Describes keys newest first; the newest active key is the one that signs. A retired key that signed a
 * certificate (`certificateKids`) stays `published` with no end.
 */
export function describeKeys(
  rows: SigningKeyRow[],
  config: Pick<Config, 'accessTokenTtlSeconds'>,
  now = new Date(),
  certificateKids: ReadonlySet<string> = new Set(),
): KeyListing[] {
  const signingKid = rows.find((r) => r.retiredAt === null)?.kid;
  return rows.map((r) => {
    const signedCertificates = certificateKids.has(r.kid);
    const until =
      r.retiredAt && !signedCertificates ? new Date(r.retiredAt.getTime() + (config.accessTokenTtlSeconds + RETIREMENT_SKEW_SECONDS) * 1000) : null;
    const state: KeyState = r.kid === signingKid ? 'signing' : until && until <= now ? 'expired' : 'published';
    return {
      kid: r.kid,
      alg: r.alg,
      state,
      encrypted: r.encrypted,
      created_at: r.createdAt.toISOString(),
      retired_at: r.retiredAt?.toISOString() ?? null,
      published_until: until?.toISOString() ?? null,
      signed_certificates: signedCertificates,
    };
  });
}

function warnIfUnencrypted(config: Config): void {
  if (!config.masterKey && config.env !== 'development' && config.env !== 'test') {
    process.stderr.write('certdesk: warning: MASTER_KEY is not set; the new private key is stored UNENCRYPTED\n');
  }
}

export function registerKeys(program: Command): void {
  const keys = program
    .command('keys')
    .description('signing keys of access tokens and certificates (ES256, published at /.well-known/jwks.json)');

  keys
    .command('rotate')
    .description(
      'add a new signing key (it signs from now on) and retire the previous one from signing: still published until its tokens expire, and for good if it signed a certificate',
    )
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const config = configFrom(command);
      warnIfUnencrypted(config);
      const result = await withDatabase(config, (handle) => rotateSigningKey(handle.db, config.masterKey));
      output(Boolean(opts.json), { kid: result.kid, encrypted: config.masterKey !== null, retired: result.retired }, () =>
        [
          `new signing key ${result.kid}${config.masterKey ? '' : ' (stored unencrypted)'}`,
          ...result.retired.map((kid) => `retired ${kid} from signing (published until its tokens expire; for good if it signed certificates)`),
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
      const [rows, certificateKids] = await withDatabase(config, (handle) =>
        Promise.all([listSigningKeys(handle.db), listCertificateSigningKids(handle.db)]),
      );
      const listing = describeKeys(rows, config, new Date(), certificateKids);
      output(Boolean(opts.json), listing, () =>
        listing.length === 0
          ? 'no signing keys yet (serve creates the first one)'
          : listing
              .map(
                (k) =>
                  `${k.kid}  ${k.alg}  ${k.state.padEnd(9)}  ${k.encrypted ? 'encrypted' : 'UNENCRYPTED'}  created ${k.created_at}${k.retired_at ? `  retired ${k.retired_at}` : ''}${k.signed_certificates ? '  signed certificates (published for good)' : ''}`,
              )
              .join('\n'),
      );
    });
}
