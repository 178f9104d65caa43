/**
 * The manifest written into a credentialed file (DECISIONS 13), as a c2pa-rs manifest definition (which
 * data-hashed-manifest.ts reads too, for the files c2pa-ts writes). The exact shape, which readers (the verify page, `certdesk-client verify`) rely on:
 *
 * - `claim_generator_info`: `[{ name: "certdesk", version }]`; `title`: the asset's name; `format`: its media type;
 * - one ingredient, the asset as uploaded, `relationship: "parentOf"` (Content Credentials the upload
 *   already carried are kept in the store as that ingredient's manifest, with the ingredient's validation
 *   results when they do not validate, as C2PA requires);
 * - `c2pa.actions.v2` whose first and only action is `c2pa.opened` of that ingredient;
 * - `org.certdesk.certificate` with `certificate_id`, `issuer`, `verify_url`, `status_url`, `asset_sha256`,
 *   `jws` and, once the transparency log has the certificate, `transparency_log` (the object of the
 *   certificate's JSON).
 */

/** The label of the certificate's assertion, exactly. */
export const CERTIFICATE_ASSERTION_LABEL = 'org.certdesk.certificate';
/** The builder's name for the parent ingredient (c2pa-rs stores it as `c2pa.ingredient.v3`). */
export const PARENT_INGREDIENT_ID = 'asset-as-uploaded';
export const CLAIM_GENERATOR = 'certdesk';

export interface CertificateAssertion {
  certificate_id: string;
  /** The issuer URL (the JWS's `iss`). */
  issuer: string;
  verify_url: string;
  /** The public `GET /v1/certificates/{certificate_id}` URL: the certificate's live status. */
  status_url: string;
  /** Lowercase hex SHA-256 of the asset as uploaded (the parent ingredient's bytes). */
  asset_sha256: string;
  /** The certificate's compact JWS, verifiable with `/.well-known/jwks.json`. */
  jws: string;
  /** The transparency log's proof (DECISIONS 14), present once the log has the certificate. */
  transparency_log?: unknown;
}

export interface ManifestInput {
  /** The asset's name as uploaded. */
  title: string;
  /** The asset's media type (`image/jpeg` …), found in its bytes. */
  mediaType: string;
  generatorVersion: string;
  certificate: CertificateAssertion;
}

/** The definition handed to c2pa-rs's Builder (JSON). */
export function manifestDefinition(input: ManifestInput): Record<string, unknown> {
  return {
    claim_generator_info: [{ name: CLAIM_GENERATOR, version: input.generatorVersion }],
    title: input.title,
    format: input.mediaType,
    ingredients: [],
    assertions: [
      {
        label: 'c2pa.actions.v2',
        data: {
          actions: [
            {
              action: 'c2pa.opened',
              description: 'Certified human-made by a reviewer; the certificate is in the org.certdesk.certificate assertion.',
              parameters: { ingredientIds: [PARENT_INGREDIENT_ID] },
            },
          ],
        },
      },
      { label: CERTIFICATE_ASSERTION_LABEL, data: input.certificate },
    ],
  };
}

/** The parent ingredient's definition (its bytes are the upload's; `format` is needed when they are not read). */
export function parentIngredient(title: string, mediaType: string): Record<string, unknown> {
  return { title, format: mediaType, relationship: 'parentOf', label: PARENT_INGREDIENT_ID };
}

/** The certificate assertion of a certificate (the URLs as the service publishes them). */
export function certificateAssertion(
  certificate: { certificate_id: string; verify_url: string; asset_sha256: string; jws: string },
  issuerUrl: string,
  publicBaseUrl: string,
  transparencyLog: unknown,
): CertificateAssertion {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    certificate_id: certificate.certificate_id,
    issuer: issuerUrl,
    verify_url: certificate.verify_url,
    status_url: `${base}/v1/certificates/${certificate.certificate_id}`,
    asset_sha256: certificate.asset_sha256,
    jws: certificate.jws,
    ...(transparencyLog ? { transparency_log: transparencyLog } : {}),
  };
}
