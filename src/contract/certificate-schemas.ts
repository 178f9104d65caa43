/**
 * Certificates (DECISIONS 9): the object of `GET /v1/orders/{order_id}/certificate` and, without
 * `order_id`, of the public `GET /v1/certificates/{certificate_id}`. Field names are exact.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

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
  },
  { $id: 'Certificate', title: 'Certificate', additionalProperties: false, description: 'The certificate of an order.' },
);

/** Path parameters of `GET /v1/certificates/{certificate_id}`: any string; one that is no certificate id is 404. */
export const CertificatePathParams = Type.Object({
  certificate_id: Type.String({ description: 'The certificate id (a UUID). Unknown or malformed ids are 404.' }),
});

export type CertificateT = Static<typeof Certificate>;
export type PublicCertificateT = Static<typeof PublicCertificate>;

export const certificateComponentSchemas: TSchema[] = [PublicCertificate, Certificate];
