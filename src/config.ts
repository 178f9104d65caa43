/**
 * Every setting certdesk reads, its environment variable, its flag, its default and its documentation.
 * This list is the single source of the defaults `loadConfig` applies and of the README's configuration
 * table (`configurationMarkdown()`; src/config.test.ts keeps the README equal to it).
 * Flags win over environment variables; environment variables win over defaults.
 */
import os from 'node:os';
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
  /** Deprecated spelling of `trustedProxyHops: 1`; kept so existing deployments keep working. */
  trustProxy: boolean;
  /** Proxies in front of the service whose `X-Forwarded-*` is believed (0: none). */
  trustedProxyHops: number;
  shutdownGracePeriodSeconds: number;
  metricsEnabled: boolean;
  metricsToken: string | null;
  /** `s3://bucket/prefix`, or null for the local directory. */
  objectStorageUrl: string | null;
  objectStorageForcePathStyle: boolean;
  maxUploadBytes: number;
  uploadTtlSeconds: number;
  /** Per user: uploads announced or received that no order used yet and that have not expired. */
  maxOutstandingUploads: number;
  maxOutstandingUploadBytes: number;
  /** Per user: uploads created (POST /v1/uploads and multipart orders) per window, across instances. */
  uploadRateLimit: number;
  uploadRateWindowSeconds: number;
  /** Background jobs run by `serve` at once (0: `serve` runs none; use `certdesk worker`). */
  workerConcurrency: number;
  /** Webhook targets may be `http` and any address (development, tests); never in production. */
  webhookAllowPrivate: boolean;
  /** Memory of rendered public certificate answers per process (MB); 0 keeps none. */
  publicCertificateCacheMb: number;
  /** Longest time a kept public certificate answer is served after it was read (seconds). */
  publicCertificateCacheTtlSeconds: number;
  /** How long a claimed job is held without a heartbeat before another instance may take it over. */
  jobLeaseSeconds: number;
  /** This process's name in /metrics and in the jobs it claims (`locked_by`). */
  instanceName: string;
  /** Ceiling of the first wait after a transient job failure (doubles per attempt). */
  jobRetryBaseMs: number;
  /** Largest ceiling of any wait between job attempts. */
  jobRetryCapMs: number;
  /** Header limits of the analysis: a file above any is refused (`Unsupported File`) before it is decoded. */
  analysisMaxImagePixels: number;
  analysisMaxLayerPixels: number;
  analysisMaxTotalPixels: number;
  analysisMaxLayers: number;
  analysisMaxMetadataBytes: number;
  /** Worker threads that decode images (previews, PSD layers, metadata), outside the HTTP thread's heap. */
  analysisDecoderThreads: number;
  /** V8 heap limit (MB) of each decoder thread; pixel buffers are bounded by the header limits instead. */
  analysisDecoderHeapMb: number;
  /** The external AI detection service; null: `ai_detection` is not run. */
  aiDetectionUrl: string | null;
  aiDetectionKey: string | null;
  aiDetectionTimeoutMs: number;
  aiDetectionMaxBytes: number;
  /** PEM file of an operator's C2PA signing chain (leaf first, then intermediates); null: a generated chain. */
  c2paCertificateChain: string | null;
  /** PEM file of the P-256 private key of that chain's leaf. */
  c2paPrivateKey: string | null;
}

type Key = keyof Config;

/** A default computed from other settings (`get` resolves one) or from the raw environment. */
type ComputedDefault<K extends Key> = (get: <J extends Key>(key: J) => Config[J], env: RawSettings) => Config[K];

interface SettingBase<K extends Key> {
  key: K;
  env: string;
  /** Long flag without the leading dashes, or null when the setting has no flag. */
  flag: string | null;
  doc: string;
  parse: (raw: string, name: string) => Config[K];
}

/**
 * A setting as written below: a plain default is shown in the docs as itself (`8080`, unset for null)
 * with an optional note; a computed default says in `defaultDoc` what it is.
 */
type SettingSpec<K extends Key = Key> = SettingBase<K> &
  ({ default: Config[K]; defaultNote?: string } | { default: ComputedDefault<K>; defaultDoc: string });

export interface SettingDefinition<K extends Key = Key> extends SettingBase<K> {
  /** What the setting is when neither its flag nor its variable is given (applied by `loadConfig`). */
  default: Config[K] | ComputedDefault<K>;
  /** The default as the docs show it. */
  defaultDoc: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

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

/**
 * AI_DETECTION_URL: an absolute http(s) URL without credentials. The value may carry a secret (userinfo,
 * or a token in the query string), so no message here repeats it.
 */
const detectionUrl = (raw: string, name: string): string => {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http:// or https:// URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new ConfigError(`${name} must be an http:// or https:// URL`);
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(`${name} must not contain credentials (user:password@): put the service's key in AI_DETECTION_KEY instead`);
  }
  return parsed.toString().replace(/\/$/, '');
};

/** Loopback hosts: where the test suites run their detection server. */
const isLoopbackHost = (hostname: string): boolean => hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);

/**
 * The detection service receives every asset and the bearer key: `https://` is required outside
 * development. In test, `http://` is allowed to a loopback address only (the suites' local detection
 * server); in production never.
 */
function checkDetectionTransport(config: Pick<Config, 'env' | 'aiDetectionUrl'>): void {
  if (!config.aiDetectionUrl) return;
  const url = new URL(config.aiDetectionUrl);
  if (url.protocol === 'https:' || config.env === 'development') return;
  if (config.env === 'test' && isLoopbackHost(url.hostname)) return;
  throw new ConfigError(
    `AI_DETECTION_URL must be https:// in ${config.env}${config.env === 'test' ? ' (http:// is allowed in test only to a loopback address)' : ''}: the images and the key would travel in clear text to ${url.host}`,
  );
}

/** Decoding is CPU-bound: half the cores (at least 1, at most 4) leaves the rest to the API. */
function defaultDecoderThreads(): number {
  return Math.max(1, Math.min(4, Math.floor(os.availableParallelism() / 2)));
}

const specs: SettingSpec[] = [
  {
    key: 'env',
    env: 'CERTDESK_ENV',
    flag: null,
    default: (_get, env) => (env.NODE_ENV === 'production' ? 'production' : 'development'),
    defaultDoc: '`development`',
    doc: '`development`, `production` or `test`. Outside development, insecure defaults (no `MASTER_KEY`) are refused or warned about loudly.',
    parse: (raw, name) => {
      if (raw === 'development' || raw === 'production' || raw === 'test') return raw;
      throw new ConfigError(`${name} must be development, production or test, got "${raw}"`);
    },
  },
  { key: 'host', env: 'HOST', flag: 'host', default: '127.0.0.1', doc: 'Address `serve` listens on. Use `0.0.0.0` behind a load balancer.', parse: nonEmpty },
  { key: 'port', env: 'PORT', flag: 'port', default: 8080, doc: 'Port `serve` listens on: API, token service and web application share it (0 picks a free port).', parse: integer(0, 65535) },
  {
    key: 'databaseUrl',
    env: 'DATABASE_URL',
    flag: 'database-url',
    default: null,
    defaultNote: 'embedded PGlite',
    doc: '`postgres://…` to use a PostgreSQL server. Unset: embedded PGlite persisted in the data directory.',
    parse: (raw, name) => {
      if (!/^postgres(ql)?:\/\//.test(raw)) throw new ConfigError(`${name} must start with postgres:// or postgresql://`);
      return raw;
    },
  },
  { key: 'dataDir', env: 'DATA_DIR', flag: 'data-dir', default: './data', doc: 'Directory of the embedded database (`<dir>/pglite`) and of the default local object storage.', parse: nonEmpty },
  { key: 'objectStorageDir', env: 'OBJECT_STORAGE_DIR', flag: 'object-storage-dir', default: (get) => path.join(get('dataDir'), 'objects'), defaultDoc: '`<data-dir>/objects`', doc: 'Local object storage directory (previews, layers).', parse: nonEmpty },
  { key: 'publicBaseUrl', env: 'PUBLIC_BASE_URL', flag: 'public-base-url', default: (get) => `http://localhost:${get('port')}`, defaultDoc: '`http://localhost:<port>`', doc: 'External base URL of the API and web application; used in presigned URLs and links.', parse: url },
  { key: 'issuerUrl', env: 'ISSUER_URL', flag: 'issuer-url', default: (get) => get('publicBaseUrl'), defaultDoc: 'the public base URL', doc: 'OAuth issuer (`iss` of access tokens, RFC 8414 metadata). The token service may live on another host.', parse: url },
  { key: 'tokenAudience', env: 'TOKEN_AUDIENCE', flag: 'token-audience', default: (get) => `${get('publicBaseUrl')}/v1`, defaultDoc: '`<public base URL>/v1`', doc: '`aud` of access tokens and the audience the API accepts.', parse: nonEmpty },
  { key: 'accessTokenTtlSeconds', env: 'ACCESS_TOKEN_TTL', flag: 'access-token-ttl', default: 3600, doc: 'Access token lifetime in seconds (`expires_in`).', parse: integer(60, 86400) },
  { key: 'presignTtlSeconds', env: 'PRESIGN_TTL', flag: 'presign-ttl', default: 900, doc: 'Lifetime in seconds of presigned preview and layer URLs.', parse: integer(10, 604800) },
  { key: 'masterKey', env: 'MASTER_KEY', flag: null, default: null, doc: 'Secret (32+ characters) that encrypts signing keys at rest. Never a flag, so it stays out of process listings.', parse: (raw, name) => {
      if (raw.length < 32) throw new ConfigError(`${name} must be at least 32 characters`);
      return raw;
    } },
  { key: 'redisUrl', env: 'REDIS_URL', flag: 'redis-url', default: null, defaultNote: 'in-process', doc: '`redis://…` to share rate limits between instances.', parse: nonEmpty },
  { key: 'logLevel', env: 'LOG_LEVEL', flag: 'log-level', default: 'info', doc: 'pino log level (`fatal` … `trace`, or `silent`). In development one readable line per request; otherwise JSON lines.', parse: (raw, name) => {
      if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(raw)) throw new ConfigError(`${name} is not a log level: "${raw}"`);
      return raw;
    } },
  { key: 'databasePoolSize', env: 'DATABASE_POOL_SIZE', flag: 'database-pool-size', default: 10, doc: 'Connections per instance to a PostgreSQL server (ignored on PGlite, which has one).', parse: integer(1, 200) },
  {
    key: 'trustedProxyHops',
    env: 'TRUSTED_PROXY_HOPS',
    flag: 'trusted-proxy-hops',
    default: (get) => (get('trustProxy') ? 1 : 0),
    defaultDoc: '`0`',
    doc: 'How many proxies (load balancers) stand in front of the service. The client address (rate limits) is the right-most `X-Forwarded-For` entry those proxies did not add, so a caller cannot choose it; `X-Forwarded-Proto` (Secure cookies) is believed only when this is at least 1. 0: the socket address, no `X-Forwarded-*` believed.',
    parse: integer(0, 10),
  },
  {
    key: 'trustProxy',
    env: 'TRUST_PROXY',
    flag: 'trust-proxy',
    default: false,
    doc: 'Deprecated: `true` means `TRUSTED_PROXY_HOPS=1` (one load balancer), no longer "believe every `X-Forwarded-For` entry". `TRUSTED_PROXY_HOPS` wins when both are set.',
    parse: boolean,
  },
  {
    key: 'shutdownGracePeriodSeconds',
    env: 'SHUTDOWN_GRACE_PERIOD',
    flag: 'shutdown-grace-period',
    default: 20,
    doc: 'Seconds `serve` takes at most to stop on SIGTERM/SIGINT: `/readyz` turns 503, no new connections, in-flight requests finish, then exit. Keep it below the orchestrator\'s kill timeout.',
    parse: integer(1, 3600),
  },
  {
    key: 'metricsEnabled',
    env: 'METRICS_ENABLED',
    flag: 'metrics-enabled',
    // Metrics say how busy the service is and which routes fail: opt-in in production.
    default: (get) => get('env') !== 'production',
    defaultDoc: '`true`, `false` in production',
    doc: 'Serve Prometheus metrics at `/metrics`.',
    parse: boolean,
  },
  {
    key: 'metricsToken',
    env: 'METRICS_TOKEN',
    flag: null,
    default: null,
    doc: 'When set, `/metrics` requires `Authorization: Bearer <token>`. Never a flag, so it stays out of process listings.',
    parse: (raw, name) => {
      if (raw.length < 16) throw new ConfigError(`${name} must be at least 16 characters`);
      return raw;
    },
  },
  {
    key: 'objectStorageUrl',
    env: 'OBJECT_STORAGE_URL',
    flag: 'object-storage-url',
    default: null,
    defaultNote: 'local directory',
    doc: '`s3://bucket/prefix` to keep objects in S3-compatible storage through the AWS SDK; endpoint, region and credentials come from the SDK\'s usual settings (`AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, profiles).',
    parse: (raw, name) => {
      if (!/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(raw)) throw new ConfigError(`${name} must look like s3://bucket/prefix, got "${raw}"`);
      return raw;
    },
  },
  { key: 'objectStorageForcePathStyle', env: 'OBJECT_STORAGE_FORCE_PATH_STYLE', flag: 'object-storage-force-path-style', default: false, doc: 'Path-style S3 URLs (`https://host/bucket/key`), which most self-hosted S3-compatible servers need.', parse: boolean },
  { key: 'maxUploadBytes', env: 'MAX_UPLOAD_BYTES', flag: 'max-upload-bytes', default: 200 * 1024 * 1024, defaultNote: '200 MiB', doc: 'Largest asset `POST /v1/uploads` accepts (`size` above it is 422).', parse: integer(1, 5 * 1024 ** 4) },
  { key: 'uploadTtlSeconds', env: 'UPLOAD_TTL', flag: 'upload-ttl', default: 3600, doc: 'Seconds an upload (its presigned PUT URL, and the upload id for creating an order) stays valid; unused uploads are deleted after it.', parse: integer(60, 7 * 86400) },
  { key: 'maxOutstandingUploads', env: 'MAX_OUTSTANDING_UPLOADS', flag: 'max-outstanding-uploads', default: 100, doc: 'Per user: uploads not yet used by an order and not expired; one more is 429 with `Retry-After` (until the first of them expires).', parse: integer(1, 1_000_000) },
  { key: 'maxOutstandingUploadBytes', env: 'MAX_OUTSTANDING_UPLOAD_BYTES', flag: 'max-outstanding-upload-bytes', default: 2 * 1024 ** 3, defaultNote: '2 GiB', doc: 'Per user: bytes of the uploads not yet used by an order and not expired (announced sizes); an announcement that would pass it is 429 with `Retry-After`.', parse: integer(1, 1024 ** 5) },
  { key: 'uploadRateLimit', env: 'UPLOAD_RATE_LIMIT', flag: 'upload-rate-limit', default: 300, doc: 'Per user: uploads created (`POST /v1/uploads` and multipart `POST /v1/orders`) per `UPLOAD_RATE_WINDOW`, counted across instances in Redis when `REDIS_URL` is set; past it 429 with `Retry-After`.', parse: integer(1, 1_000_000) },
  { key: 'uploadRateWindowSeconds', env: 'UPLOAD_RATE_WINDOW', flag: 'upload-rate-window', default: 600, doc: 'Seconds of the `UPLOAD_RATE_LIMIT` window (fixed, starting at the first upload).', parse: integer(1, 86400) },
  {
    key: 'webhookAllowPrivate',
    env: 'WEBHOOK_ALLOW_PRIVATE',
    flag: 'webhook-allow-private',
    default: false,
    doc: 'Allow webhook endpoints over `http` and on loopback, private, link-local and other non-public addresses (development and tests only: it turns the SSRF guard off; refused in production).',
    parse: boolean,
  },
  {
    key: 'publicCertificateCacheMb',
    env: 'PUBLIC_CERTIFICATE_CACHE_MB',
    flag: 'public-certificate-cache-mb',
    default: 64,
    doc: 'Memory (MB, per process) of rendered public certificate answers (`GET /v1/certificates/{id}`, the badge), about 3 KB each (about 20,000 certificates at 64); PostgreSQL only, dropped across all instances when a certificate changes (docs/certificates.md). `0` reads every request from the database.',
    parse: integer(0, 16384),
  },
  {
    key: 'publicCertificateCacheTtlSeconds',
    env: 'PUBLIC_CERTIFICATE_CACHE_TTL',
    flag: 'public-certificate-cache-ttl',
    default: 60,
    doc: 'Longest time (seconds) a kept public certificate answer is served after it was read: the safety net behind the change notifications, which drop a revoked certificate everywhere within milliseconds.',
    parse: integer(1, 3600),
  },
  { key: 'workerConcurrency', env: 'WORKER_CONCURRENCY', flag: 'worker-concurrency', default: 2, doc: 'Background jobs (analysis, cleanup) one process runs at once; `serve` with `0` runs none, leaving them to `certdesk worker`.', parse: integer(0, 64) },
  {
    key: 'aiDetectionUrl',
    env: 'AI_DETECTION_URL',
    flag: 'ai-detection-url',
    default: null,
    defaultNote: '`ai_detection` not run',
    doc: 'The external AI detection service certdesk POSTs images to (docs/detection-service.md); the only address it sends them to. `https://` outside development (`http://` only in development, and in test to a loopback address); no credentials in it (`user:password@` is refused: the key is `AI_DETECTION_KEY`). Unset: no `ai_detection` check, orders wait for a reviewer.',
    parse: detectionUrl,
  },
  { key: 'jobLeaseSeconds', env: 'JOB_LEASE_SECONDS', flag: 'job-lease-seconds', default: 60, doc: 'How long a background job claimed by a process stays its own without a heartbeat (renewed every third of it while the job runs): when a process dies mid-job, another takes the job over this long after its last heartbeat (docs/operations.md, "Running several instances").', parse: integer(2, 3600) },
  { key: 'instanceName', env: 'INSTANCE_NAME', flag: 'instance-name', default: () => `${os.hostname()}-${process.pid}`, defaultDoc: 'the host name and process id', doc: 'This process\'s name in the `instance` label of its job metrics and in the worker id of the jobs it claims (docs/operations.md, "Running several instances").', parse: nonEmpty },
  { key: 'jobRetryBaseMs', env: 'JOB_RETRY_BASE_MS', flag: 'job-retry-base-ms', default: 2000, doc: 'Backoff of a background job after a transient failure (detection service, storage, network, database): the n-th retry waits a random time up to this × 2^(n-1), capped by `JOB_RETRY_CAP_MS` (docs/operations.md, "Retries").', parse: integer(1, 86_400_000) },
  { key: 'jobRetryCapMs', env: 'JOB_RETRY_CAP_MS', flag: 'job-retry-cap-ms', default: 12 * 3_600_000, defaultNote: '12 hours', doc: 'Largest wait between two attempts of a background job; with the defaults an analysis is retried for about 2.6 days (25 attempts) before its order moves to `Failed`.', parse: integer(1, 7 * 86_400_000) },
  { key: 'analysisMaxImagePixels', env: 'ANALYSIS_MAX_IMAGE_PIXELS', flag: 'analysis-max-image-pixels', default: 100_000_000, defaultNote: '100 MP', doc: 'Largest image (width × height, read from the header before any decoding) the analysis accepts; a larger one ends `Unsupported File`. Also sharp\'s `limitInputPixels`.', parse: integer(1, 10 ** 12) },
  { key: 'analysisMaxLayerPixels', env: 'ANALYSIS_MAX_LAYER_PIXELS', flag: 'analysis-max-layer-pixels', default: 100_000_000, defaultNote: '100 MP', doc: 'Largest PSD layer (its bounds, from the layer records) the analysis accepts; a larger one ends `Unsupported File`.', parse: integer(1, 10 ** 12) },
  { key: 'analysisMaxTotalPixels', env: 'ANALYSIS_MAX_TOTAL_PIXELS', flag: 'analysis-max-total-pixels', default: 1_000_000_000, defaultNote: '1 GP', doc: 'Largest sum of the pixels of a PSD\'s layers; above it the file ends `Unsupported File`. With the image limit it bounds ag-psd\'s `totalMemoryLimit` (4 bytes per pixel).', parse: integer(1, 10 ** 13) },
  { key: 'analysisMaxLayers', env: 'ANALYSIS_MAX_LAYERS', flag: 'analysis-max-layers', default: 500, doc: 'Most layers (groups included) a PSD may have; more ends `Unsupported File` (each pixel layer becomes a stored PNG and a `layers_info` entry).', parse: integer(1, 100_000) },
  { key: 'analysisMaxMetadataBytes', env: 'ANALYSIS_MAX_METADATA_BYTES', flag: 'analysis-max-metadata-bytes', default: 4 * 1024 * 1024, defaultNote: '4 MiB', doc: 'Largest EXIF, XMP or IPTC block (and PNG text in total) the analysis reads; a file with a larger one ends `Unsupported File` before any block is parsed.', parse: integer(1024, 1024 ** 3) },
  { key: 'analysisDecoderThreads', env: 'ANALYSIS_DECODER_THREADS', flag: 'analysis-decoder-threads', default: (_get) => defaultDecoderThreads(), defaultDoc: 'half the CPUs, 1 to 4', doc: 'Worker threads of one process that decode images for the analysis (headers, metadata, previews, PSD layers); a file that crashes or exhausts one costs that thread, never the HTTP thread.', parse: integer(1, 64) },
  { key: 'analysisDecoderHeapMb', env: 'ANALYSIS_DECODER_HEAP_MB', flag: 'analysis-decoder-heap-mb', default: 512, doc: 'V8 heap limit in MB of each decoder thread (`resourceLimits.maxOldGenerationSizeMb`); pixel buffers live outside it and are bounded by the `ANALYSIS_MAX_*` limits.', parse: integer(64, 16_384) },
  { key: 'aiDetectionKey', env: 'AI_DETECTION_KEY', flag: null, default: null, doc: 'Bearer key of the detection service (required with `AI_DETECTION_URL`). Never a flag, never logged.', parse: nonEmpty },
  { key: 'aiDetectionTimeoutMs', env: 'AI_DETECTION_TIMEOUT_MS', flag: 'ai-detection-timeout-ms', default: 10_000, doc: 'Deadline of one detection request; a request that runs out is retried with the analysis job.', parse: integer(100, 600_000) },
  { key: 'aiDetectionMaxBytes', env: 'AI_DETECTION_MAX_BYTES', flag: 'ai-detection-max-bytes', default: 20 * 1024 * 1024, defaultNote: '20 MiB', doc: 'Largest image sent to the detection service; larger assets (and PSD, TIFF) are sent as the JPEG preview.', parse: integer(1024, 1024 ** 3) },
  { key: 'c2paCertificateChain', env: 'C2PA_CERTIFICATE_CHAIN', flag: 'c2pa-certificate-chain', default: null, defaultNote: 'a generated chain', doc: 'Path of a PEM file with the X.509 chain that signs Content Credentials (the leaf first, then intermediates, no root), e.g. from a C2PA-trusted authority; with `C2PA_PRIVATE_KEY`. Unset: the service generates a root named for the deployment and a leaf with the C2PA signing profile on first start (docs/content-credentials.md).', parse: nonEmpty },
  { key: 'c2paPrivateKey', env: 'C2PA_PRIVATE_KEY', flag: 'c2pa-private-key', default: null, doc: 'Path of the PEM file of the P-256 private key of `C2PA_CERTIFICATE_CHAIN`\'s leaf (PKCS#8 or SEC 1). Read at start, never stored or logged.', parse: nonEmpty },
];

export type RawSettings = Partial<Record<string, string | undefined>>;

function docOfDefault(spec: SettingSpec): string {
  if ('defaultDoc' in spec) return spec.defaultDoc;
  const shown = spec.default === null ? 'unset' : `\`${String(spec.default)}\``;
  return spec.defaultNote ? `${shown} (${spec.defaultNote})` : shown;
}

export const settings: SettingDefinition[] = specs.map((spec) => ({
  key: spec.key,
  env: spec.env,
  flag: spec.flag,
  default: spec.default,
  defaultDoc: docOfDefault(spec),
  doc: spec.doc,
  parse: spec.parse,
}));

/**
 * Builds the configuration from environment variables and flag values (flag values keyed by `Config` key).
 * Throws ConfigError with a one-line message naming the variable or flag at fault.
 */
export function loadConfig(env: RawSettings = process.env, flags: Partial<Record<Key, string>> = {}): Config {
  const given: Partial<Record<Key, unknown>> = {};
  for (const s of settings) {
    const fromFlag = flags[s.key];
    const fromEnv = env[s.env];
    if (fromFlag !== undefined) given[s.key] = s.parse(String(fromFlag), `--${s.flag ?? s.env}`);
    else if (fromEnv !== undefined && fromEnv !== '') given[s.key] = s.parse(fromEnv, s.env);
  }
  if (given.aiDetectionUrl !== undefined && given.aiDetectionKey === undefined) {
    throw new ConfigError('AI_DETECTION_URL is set but AI_DETECTION_KEY is not: the detection service needs its bearer key');
  }
  const byKey = new Map(settings.map((s) => [s.key, s]));
  const resolved = new Map<Key, unknown>();
  const get = <J extends Key>(key: J): Config[J] => {
    if (!resolved.has(key)) {
      const fallback = byKey.get(key)!.default;
      resolved.set(key, given[key] !== undefined ? given[key] : typeof fallback === 'function' ? fallback(get, env) : fallback);
    }
    return resolved.get(key) as Config[J];
  };
  const config = Object.fromEntries(settings.map((s) => [s.key, get(s.key)])) as unknown as Config;
  checkDetectionTransport(config);
  if ((config.c2paCertificateChain === null) !== (config.c2paPrivateKey === null)) {
    throw new ConfigError('C2PA_CERTIFICATE_CHAIN and C2PA_PRIVATE_KEY go together: set both (an operator\'s chain and its key) or neither (a generated chain)');
  }
  // The SSRF guard of webhooks (docs/webhooks.md): never off in production.
  if (config.webhookAllowPrivate && config.env === 'production') throw new ConfigError('WEBHOOK_ALLOW_PRIVATE=true is refused when CERTDESK_ENV=production: it lets webhook endpoints reach internal addresses');
  config.dataDir = path.resolve(config.dataDir);
  config.objectStorageDir = path.resolve(config.objectStorageDir);
  if (config.c2paCertificateChain) config.c2paCertificateChain = path.resolve(config.c2paCertificateChain);
  if (config.c2paPrivateKey) config.c2paPrivateKey = path.resolve(config.c2paPrivateKey);
  return config;
}

/** The configuration table of the README, generated from `settings`. */
export function configurationMarkdown(): string {
  const rows = settings.map(
    (s) => `| \`${s.env}\` | ${s.flag ? `\`--${s.flag}\`` : '—'} | ${s.defaultDoc} | ${s.doc} |`,
  );
  return ['| Variable | Flag | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
