/**
 * Certificates (DECISIONS 9): the object of `GET /v1/orders/{order_id}/certificate` and, without
 * `order_id`, of the public `GET /v1/certificates/{certificate_id}`. Field names are exact.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** One logged event of a certificate (DECISIONS 14): where it is in the log and the proof of it. */
export const TransparencyLogInclusion = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'The entry\'s index in the log (0-based, as in the tiles).' }),
    entry: Type.String({
      description:
        'The exact entry text (UTF-8 JSON, RFC 8785 canonical): `{"at":"<RFC 3339 UTC with milliseconds>","certificate_sha256":"<hex SHA-256 of the compact JWS>","type":"certificate.issued"|"certificate.revoked"}`. Its leaf hash is SHA-256(0x00 || entry).',
    }),
    inclusion_proof: Type.Array(Type.String({ contentEncoding: 'base64', description: 'A 32-byte hash, base64.' }), {
      description: 'The RFC 6962 audit path of the entry in the tree of `checkpoint` (base64 hashes, leaf to root).',
    }),
    checkpoint: Type.String({
      description:
        'The full signed note (C2SP tlog-checkpoint, signed per C2SP signed-note with the log\'s Ed25519 key, `GET /log/key`) the proof leads to: the first checkpoint that included the entry.',
    }),
  },
  { $id: 'TransparencyLogInclusion', title: 'TransparencyLogInclusion', additionalProperties: false },
);

const inclusionRef = () => Type.Unsafe<Static<typeof TransparencyLogInclusion>>(Type.Ref('TransparencyLogInclusion'));

/** Where a certificate's issuance (and revocation) is in the public log; null until sequenced. */
export const TransparencyLog = Type.Object(
  {
    origin: Type.String({ description: 'The log\'s origin: `<public base URL without scheme>/log`, the first line of its checkpoints and its key name.' }),
    issued: inclusionRef(),
    revoked: Type.Union([inclusionRef(), Type.Null()], {
      description: 'The revocation\'s entry; null while the certificate is valid, and while its revocation is not sequenced yet.',
    }),
  },
  {
    $id: 'TransparencyLog',
    title: 'TransparencyLog',
    additionalProperties: false,
    description: 'The certificate in the public transparency log (docs/transparency-log.md).',
  },
);

const transparencyLogField = Type.Union([Type.Unsafe<Static<typeof TransparencyLog>>(Type.Ref('TransparencyLog')), Type.Null()], {
  description:
    'The certificate in the public transparency log (`/log/`): null until its issuance is in a published signed checkpoint (within 2 s, p99), then where its entries are with their inclusion proofs.',
});

const fields = {
  certificate_id: Type.String({ format: 'uuid', description: 'The certificate id (a random UUID; the `jti` claim).' }),
  status: Type.Union([Type.Literal('valid'), Type.Literal('revoked')], { description: '`revoked` once revoked (final).' }),
  issued_at: Type.String({ format: 'date-time', description: 'RFC 3339 UTC time of issue.' }),
  revoked_at: Nullable(Type.String({ format: 'date-time', description: 'RFC 3339 UTC time of revocation; null while valid.' })),
  revocation_reason: Nullable(Type.String({ description: 'Why it was revoked; null while valid.' })),
  asset_name: Type.String({ description: 'File name of the certified asset.' }),
  asset_sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Lowercase hex SHA-256 of the asset’s bytes as uploaded.' }),
  jws: Type.String({ description: 'The certificate: a compact JWS (ES256, `typ` `certdesk-certificate+jwt`), verifiable with `/.well-known/jwks.json` alone.' }),
  verify_url: Type.String({ format: 'uri', description: 'The public page that verifies the certificate: `<public base URL>/verify/<certificate_id>`.' }),
  content_credentials: Type.Union([Type.Literal('pending'), Type.Literal('ready'), Type.Literal('unsupported')], {
    description:
      'The credentialed copy of the asset (a C2PA manifest carrying this certificate, embedded in a copy of the file as uploaded): `pending` while it is being made (normally under 60 s after issue), `ready` once `GET /v1/orders/{order_id}/certificate/file` serves it, `unsupported` when the format cannot carry Content Credentials (PSD) or the file\'s own manifest could not be read safely.',
  }),
  transparency_log: transparencyLogField,
};

export const PublicCertificate = Type.Object(fields, {
  $id: 'PublicCertificate',
  title: 'PublicCertificate',
  additionalProperties: false,
  description: 'A certificate as anyone with its id sees it (no credentials).',
});

export const Certificate = Type.Object(
  {
    certificate_id: fields.certificate_id,
    order_id: Type.String({ description: 'The certified order (the `sub` claim).' }),
    status: fields.status,
    issued_at: fields.issued_at,
    revoked_at: fields.revoked_at,
    revocation_reason: fields.revocation_reason,
    asset_name: fields.asset_name,
    asset_sha256: fields.asset_sha256,
    jws: fields.jws,
    verify_url: fields.verify_url,
    content_credentials: fields.content_credentials,
    transparency_log: fields.transparency_log,
  },
  { $id: 'Certificate', title: 'Certificate', additionalProperties: false, description: 'The certificate of an order.' },
);

/** Path parameters of `GET /v1/certificates/{certificate_id}`: any string; one that is no certificate id is 404. */
export const CertificatePathParams = Type.Object({
  certificate_id: Type.String({ description: 'The certificate id (a UUID). Unknown or malformed ids are 404.' }),
});

export type CertificateT = Static<typeof Certificate>;
export type PublicCertificateT = Static<typeof PublicCertificate>;
export type TransparencyLogInclusionT = Static<typeof TransparencyLogInclusion>;
export type TransparencyLogT = Static<typeof TransparencyLog>;

export const certificateComponentSchemas: TSchema[] = [TransparencyLogInclusion, TransparencyLog, PublicCertificate, Certificate];
