/**
 * What a file's Content Credentials (C2PA) say about certdesk, from the manifest store that the C2PA
 * reference implementation (c2pa-rs, e.g. `@contentauth/c2pa-wasm`'s `WasmReader`) read and validated.
 * Pure functions, no I/O: the command-line client (`certdesk-client verify`) and the web page `/verify`
 * both use them, each with the library loaded its own way (a local file in Node, a URL in a browser).
 *
 * A file is certdesk's only when its ACTIVE manifest carries the `org.certdesk.certificate` assertion
 * AND that manifest's signing certificate chains to certdesk's C2PA trust anchors
 * (`/.well-known/c2pa-trust-anchors.pem`): anyone can copy the assertion into a manifest of their own,
 * nobody else can sign with certdesk's key. "Intact" means the reader found no failure in the active
 * manifest other than the trust verdict: the claim signature, every hashed assertion and the hash over
 * the file's bytes (`assertion.dataHash.match`) all check out.
 */

export const CERTDESK_ASSERTION_LABEL = 'org.certdesk.certificate';

/** The `org.certdesk.certificate` assertion (DECISIONS 13), as the reader returns its data. */
export interface CertdeskAssertion {
  certificate_id: string;
  /** The issuer URL (the JWS's `iss`). */
  issuer: string;
  verify_url: string;
  /** The public `GET /v1/certificates/{id}` URL. */
  status_url: string;
  /** Lowercase hex SHA-256 of the asset as uploaded (before the manifest was embedded). */
  asset_sha256: string;
  /** The certificate: compact JWS (ES256), verifiable with the JWKS. */
  jws: string;
  /** The transparency log proof, as in the certificate's JSON; absent when the file was made before it. */
  transparency_log?: unknown;
}

/** Who signed a manifest and with what software (what the reader reports). */
export interface ManifestSigner {
  /** The signing certificate's organization (the reader's `signature_info.issuer`), else its common name. */
  signer: string | null;
  /** The claim generator (name and version), e.g. `Adobe Photoshop 26.0`. */
  claimGenerator: string | null;
}

export interface ValidationEntry {
  code: string;
  url?: string;
  explanation?: string;
}

export type ContentCredentialsReading =
  /** No Content Credentials in the file. */
  | { kind: 'none' }
  /** The active manifest carries certdesk's assertion. */
  | {
      kind: 'certdesk';
      assertion: CertdeskAssertion;
      manifest: ManifestSigner;
      /** No failure in the active manifest but the trust verdict: bytes and manifest as signed. */
      intact: boolean;
      /** Signed by a certificate chaining to the trust anchors the reader was given (certdesk's). */
      trusted: boolean;
      /** The failures the reader reported for the active manifest (codes such as `assertion.dataHash.mismatch`). */
      failures: ValidationEntry[];
    }
  /** Content Credentials of someone else (or certdesk's assertion malformed). */
  | { kind: 'other'; manifest: ManifestSigner; intact: boolean; failures: ValidationEntry[] };

/** Failure codes about trust in the signer, not about the integrity of the file or the manifest. */
const TRUST_CODES = new Set(['signingCredential.untrusted']);

/**
 * The reader settings (c2pa-rs settings JSON, the `context_json` argument of `WasmReader.fromBytes`):
 * trust decided against `trustAnchorsPem` only (no other list; none trusted when it holds no certificate), checked on read. OCSP is not fetched
 * (the readers run offline or under a CSP that allows only certdesk's origin).
 */
export function readerSettings(trustAnchorsPem: string): string {
  const verify = { verify_trust: true, verify_after_reading: true };
  // No anchors at all (none published yet): trust is still checked, so no signer is trusted. (c2pa-rs
  // refuses an empty trust_anchors setting outright.)
  if (!trustAnchorsPem.includes('-----BEGIN CERTIFICATE-----')) return JSON.stringify({ verify });
  return JSON.stringify({ verify, trust: { trust_anchors: trustAnchorsPem } });
}

/** True for the error the reader throws when a file has no manifest at all (c2pa-rs `JumbfNotFound`). */
export function isNoManifestError(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /JumbfNotFound|ProvenanceMissing|UnsupportedType|NotFound/.test(text);
}

/**
 * The media type the reader should parse `bytes` as, from their first bytes (a dropped file's declared
 * type or a file name's extension can lie or be missing). Null for a format none of certdesk's readers
 * takes.
 */
export function sniffMediaType(bytes: Uint8Array): string | null {
  const at = (i: number) => bytes[i] ?? -1;
  const ascii = (from: number, text: string) => Array.from(text).every((c, i) => at(from + i) === c.charCodeAt(0));
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'image/jpeg';
  if (at(0) === 0x89 && ascii(1, 'PNG')) return 'image/png';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
  if (ascii(0, 'GIF8')) return 'image/gif';
  if ((ascii(0, 'II') && at(2) === 42 && at(3) === 0) || (ascii(0, 'MM') && at(2) === 0 && at(3) === 42)) return 'image/tiff';
  if (ascii(4, 'ftyp')) {
    if (ascii(8, 'avif') || ascii(8, 'avis')) return 'image/avif';
    if (ascii(8, 'heic') || ascii(8, 'heix') || ascii(8, 'mif1')) return 'image/heic';
  }
  return null;
}

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function entries(value: unknown): ValidationEntry[] {
  return Array.isArray(value) ? value.map(record).filter((e): e is Record<string, unknown> => e !== null && typeof e.code === 'string').map((e) => e as unknown as ValidationEntry) : [];
}

function claimGeneratorOf(manifest: Record<string, unknown>): string | null {
  const info = Array.isArray(manifest.claim_generator_info) ? record(manifest.claim_generator_info[0]) : null;
  if (info && text(info.name)) return [info.name, text(info.version)].filter(Boolean).join(' ');
  return text(manifest.claim_generator);
}

function signerOf(manifest: Record<string, unknown>): ManifestSigner {
  const signature = record(manifest.signature_info);
  return {
    signer: (signature && (text(signature.issuer) ?? text(signature.common_name))) ?? null,
    claimGenerator: claimGeneratorOf(manifest),
  };
}

/** The assertion's data when every field of DECISIONS 13 is there with the right type; null otherwise. */
export function certdeskAssertionOf(data: unknown): CertdeskAssertion | null {
  const d = record(data);
  if (!d) return null;
  for (const field of ['certificate_id', 'issuer', 'verify_url', 'status_url', 'asset_sha256', 'jws'] as const) {
    if (typeof d[field] !== 'string') return null;
  }
  if (!/^[0-9a-f]{64}$/.test(d.asset_sha256 as string)) return null;
  return d as unknown as CertdeskAssertion;
}

/** The active manifest's validation failures, in both shapes c2pa-rs reports them (2.x `validation_results`, 1.x `validation_status`). */
function activeFailures(store: Record<string, unknown>): ValidationEntry[] {
  const results = record(store.validation_results);
  const active = results ? record(results.activeManifest) : null;
  if (active) return entries(active.failure);
  // Older stores: one flat list, successes and failures mixed; failures are the codes not ending in a success word.
  return entries(store.validation_status).filter((e) => !/\.(match|validated|trusted|insideValidity)$/.test(e.code));
}

function activeSuccesses(store: Record<string, unknown>): ValidationEntry[] {
  const results = record(store.validation_results);
  const active = results ? record(results.activeManifest) : null;
  return active ? entries(active.success) : [];
}

/**
 * What the manifest store says: `store` is the parsed JSON of the reader's `json()` (a manifest store
 * with `active_manifest`, `manifests` and `validation_results`), read with certdesk's trust anchors.
 */
export function interpretManifestStore(store: unknown): ContentCredentialsReading {
  const s = record(store);
  const manifests = s ? record(s.manifests) : null;
  const activeLabel = s ? text(s.active_manifest) : null;
  const active = manifests && activeLabel ? record(manifests[activeLabel]) : null;
  if (!s || !active) return { kind: 'none' };
  const failures = activeFailures(s);
  const intact = failures.every((f) => TRUST_CODES.has(f.code));
  const manifest = signerOf(active);
  const assertions = Array.isArray(active.assertions) ? active.assertions.map(record) : [];
  const found = assertions.find((a) => a !== null && a.label === CERTDESK_ASSERTION_LABEL);
  const assertion = found ? certdeskAssertionOf(found.data) : null;
  if (!assertion) return { kind: 'other', manifest, intact, failures };
  const trusted = activeSuccesses(s).some((e) => e.code === 'signingCredential.trusted') && !failures.some((f) => TRUST_CODES.has(f.code));
  return { kind: 'certdesk', assertion, manifest, intact, trusted, failures };
}

/**
 * Checks that the certificate (the JWS's verified claims) is the one the assertion names: same id,
 * same asset digest, same issuer. Returns the first disagreement, or null when they agree.
 */
export function assertionDisagreement(assertion: CertdeskAssertion, claims: { jti?: unknown; asset_sha256?: unknown; iss?: unknown }): string | null {
  if (claims.jti !== assertion.certificate_id) return 'certificate_id';
  if (claims.asset_sha256 !== assertion.asset_sha256) return 'asset_sha256';
  if (claims.iss !== assertion.issuer) return 'issuer';
  return null;
}

/** The smallest surface of `@contentauth/c2pa-wasm`'s `WasmReader` this module needs. */
export interface C2paReaderClass {
  fromBytes(format: string, bytes: Uint8Array, contextJson?: string | null): Promise<{ json(): string; free(): void }>;
}

/**
 * Reads and validates `bytes` with the reference implementation (`Reader` is its initialized
 * `WasmReader`) against `trustAnchorsPem`, and says what it found. `mediaType` defaults to what the
 * bytes look like; a file of a format the reader does not take reads as `none`. A malformed manifest
 * throws (the reader's error).
 */
export async function readContentCredentials(Reader: C2paReaderClass, bytes: Uint8Array, trustAnchorsPem: string, mediaType?: string | null): Promise<ContentCredentialsReading> {
  const format = sniffMediaType(bytes) ?? mediaType;
  if (!format) return { kind: 'none' };
  let reader: { json(): string; free(): void };
  try {
    reader = await Reader.fromBytes(format, bytes, readerSettings(trustAnchorsPem));
  } catch (error) {
    if (isNoManifestError(error)) return { kind: 'none' };
    throw error;
  }
  try {
    return interpretManifestStore(JSON.parse(reader.json()));
  } finally {
    reader.free();
  }
}
