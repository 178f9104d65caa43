/**
 * Every setting certdesk reads, its environment variable, its flag, its default and its documentation.
 * This list is the single source of the README's configuration table (`certdesk config --markdown`).
 * Flags win over environment variables; environment variables win over defaults.
 */
import path from 'node:path';

export type Environment = 'development' | 'production' | 'test';

export interface Config {
  env: Environment;
  host: string;
  port: number;
  databaseUrl: string | null;
  dataDir: string;
  objectStorageDir: string;
  publicBaseUrl: string;
  issuerUrl: string;
  tokenAudience: string;
  accessTokenTtlSeconds: number;
  presignTtlSeconds: number;
  masterKey: string | null;
  redisUrl: string | null;
  logLevel: string;
  databasePoolSize: number;
  trustProxy: boolean;
}

type Key = keyof Config;

export interface SettingDefinition<K extends Key = Key> {
  key: K;
  env: string;
  /** Long flag without the leading dashes, or null when the setting has no flag. */
  flag: string | null;
  /** Default shown in the docs (the computed default is applied by `resolve`). */
  defaultDoc: string;
  doc: string;
  parse: (raw: string, name: string) => Config[K];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const text = (raw: string): string => raw;
const nonEmpty = (raw: string, name: string): string => {
  if (raw.trim() === '') throw new ConfigError(`${name} must not be empty`);
  return raw;
};
const integer =
  (min: number, max: number) =>
  (raw: string, name: string): number => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return n;
  };
const url = (raw: string, name: string): string => {
  try {
    return new URL(raw).toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
};
const boolean = (raw: string, name: string): boolean => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
};

export const settings: SettingDefinition[] = [
  {
    key: 'env',
    env: 'CERTDESK_ENV',
    flag: null,
    defaultDoc: '`development`',
    doc: '`development`, `production` or `test`. Outside development, insecure defaults (no `MASTER_KEY`) are refused or warned about loudly.',
    parse: (raw, name) => {
      if (raw === 'development' || raw === 'production' || raw === 'test') return raw;
      throw new ConfigError(`${name} must be development, production or test, got "${raw}"`);
    },
  },
  { key: 'host', env: 'HOST', flag: 'host', defaultDoc: '`127.0.0.1`', doc: 'Address `serve` listens on. Use `0.0.0.0` behind a load balancer.', parse: nonEmpty },
  { key: 'port', env: 'PORT', flag: 'port', defaultDoc: '`8080`', doc: 'Port `serve` listens on: API, token service and web application share it (0 picks a free port).', parse: integer(0, 65535) },
  {
    key: 'databaseUrl',
    env: 'DATABASE_URL',
    flag: 'database-url',
    defaultDoc: 'unset (embedded PGlite)',
    doc: '`postgres://…` to use a PostgreSQL server. Unset: embedded PGlite persisted in the data directory.',
    parse: (raw, name) => {
      if (!/^postgres(ql)?:\/\//.test(raw)) throw new ConfigError(`${name} must start with postgres:// or postgresql://`);
      return raw;
    },
  },
  { key: 'dataDir', env: 'DATA_DIR', flag: 'data-dir', defaultDoc: '`./data`', doc: 'Directory of the embedded database (`<dir>/pglite`) and of the default local object storage.', parse: nonEmpty },
  { key: 'objectStorageDir', env: 'OBJECT_STORAGE_DIR', flag: 'object-storage-dir', defaultDoc: '`<data-dir>/objects`', doc: 'Local object storage directory (previews, layers).', parse: nonEmpty },
  { key: 'publicBaseUrl', env: 'PUBLIC_BASE_URL', flag: 'public-base-url', defaultDoc: '`http://localhost:<port>`', doc: 'External base URL of the API and web application; used in presigned URLs and links.', parse: url },
  { key: 'issuerUrl', env: 'ISSUER_URL', flag: 'issuer-url', defaultDoc: 'the public base URL', doc: 'OAuth issuer (`iss` of access tokens, RFC 8414 metadata). The token service may live on another host.', parse: url },
  { key: 'tokenAudience', env: 'TOKEN_AUDIENCE', flag: 'token-audience', defaultDoc: '`<public base URL>/v1`', doc: '`aud` of access tokens and the audience the API accepts.', parse: nonEmpty },
  { key: 'accessTokenTtlSeconds', env: 'ACCESS_TOKEN_TTL', flag: 'access-token-ttl', defaultDoc: '`3600`', doc: 'Access token lifetime in seconds (`expires_in`).', parse: integer(60, 86400) },
  { key: 'presignTtlSeconds', env: 'PRESIGN_TTL', flag: 'presign-ttl', defaultDoc: '`900`', doc: 'Lifetime in seconds of presigned preview and layer URLs.', parse: integer(10, 604800) },
  { key: 'masterKey', env: 'MASTER_KEY', flag: null, defaultDoc: 'unset', doc: 'Secret (32+ characters) that encrypts signing keys at rest. Never a flag, so it stays out of process listings.', parse: (raw, name) => {
      if (raw.length < 32) throw new ConfigError(`${name} must be at least 32 characters`);
      return raw;
    } },
  { key: 'redisUrl', env: 'REDIS_URL', flag: 'redis-url', defaultDoc: 'unset (in-process)', doc: '`redis://…` to share rate limits between instances.', parse: nonEmpty },
  { key: 'logLevel', env: 'LOG_LEVEL', flag: 'log-level', defaultDoc: '`info`', doc: 'pino log level (`fatal` … `trace`, or `silent`).', parse: (raw, name) => {
      if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(raw)) throw new ConfigError(`${name} is not a log level: "${raw}"`);
      return raw;
    } },
  { key: 'databasePoolSize', env: 'DATABASE_POOL_SIZE', flag: 'database-pool-size', defaultDoc: '`10`', doc: 'Connections per instance to a PostgreSQL server (ignored on PGlite, which has one).', parse: integer(1, 200) },
  { key: 'trustProxy', env: 'TRUST_PROXY', flag: 'trust-proxy', defaultDoc: '`false`', doc: 'Trust `X-Forwarded-*` from a load balancer (client address for rate limits, TLS for Secure cookies).', parse: boolean },
];

export type RawSettings = Partial<Record<string, string | undefined>>;

/**
 * Builds the configuration from environment variables and flag values (flag values keyed by `Config` key).
 * Throws ConfigError with a one-line message naming the variable or flag at fault.
 */
export function loadConfig(env: RawSettings = process.env, flags: Partial<Record<Key, string>> = {}): Config {
  const values: Partial<Record<Key, unknown>> = {};
  for (const s of settings) {
    const fromFlag = flags[s.key];
    const fromEnv = env[s.env];
    if (fromFlag !== undefined) values[s.key] = s.parse(String(fromFlag), `--${s.flag ?? s.env}`);
    else if (fromEnv !== undefined && fromEnv !== '') values[s.key] = s.parse(fromEnv, s.env);
  }
  const env_ = (values.env as Environment | undefined) ?? (env.NODE_ENV === 'production' ? 'production' : 'development');
  const port = (values.port as number | undefined) ?? 8080;
  const dataDir = path.resolve((values.dataDir as string | undefined) ?? './data');
  const publicBaseUrl = (values.publicBaseUrl as string | undefined) ?? `http://localhost:${port}`;
  return {
    env: env_,
    host: (values.host as string | undefined) ?? '127.0.0.1',
    port,
    databaseUrl: (values.databaseUrl as string | undefined) ?? null,
    dataDir,
    objectStorageDir: path.resolve((values.objectStorageDir as string | undefined) ?? path.join(dataDir, 'objects')),
    publicBaseUrl,
    issuerUrl: (values.issuerUrl as string | undefined) ?? publicBaseUrl,
    tokenAudience: (values.tokenAudience as string | undefined) ?? `${publicBaseUrl}/v1`,
    accessTokenTtlSeconds: (values.accessTokenTtlSeconds as number | undefined) ?? 3600,
    presignTtlSeconds: (values.presignTtlSeconds as number | undefined) ?? 900,
    masterKey: (values.masterKey as string | undefined) ?? null,
    redisUrl: (values.redisUrl as string | undefined) ?? null,
    logLevel: (values.logLevel as string | undefined) ?? 'info',
    databasePoolSize: (values.databasePoolSize as number | undefined) ?? 10,
    trustProxy: (values.trustProxy as boolean | undefined) ?? false,
  };
}

/** The configuration table of the README, generated from `settings`. */
export function configurationMarkdown(): string {
  const rows = settings.map(
    (s) => `| \`${s.env}\` | ${s.flag ? `\`--${s.flag}\`` : '—'} | ${s.defaultDoc} | ${s.doc} |`,
  );
  return ['| Variable | Flag | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
