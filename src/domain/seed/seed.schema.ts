/** The seed file (docs/seed-format.md) as a JSON Schema; rules across records are checked in seed.ts. */
import { Type, type Static } from '@sinclair/typebox';
import { ALL_SCOPES, PROJECT_ROLES } from '../../contract/schemas.js';
import { OBJECT_KEY_PATTERN } from '../../storage/object-storage/object-key.js';
import { OrderInput, RFC3339_PATTERN } from '../orders/order-input.schema.js';
import { UUID_PATTERN } from '../uuid.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../users/password.js';

const Uuid = Type.String({ pattern: UUID_PATTERN, description: 'a UUID' });
const Email = Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+$', description: 'an e-mail address' });
const Threshold = Type.Number({ minimum: 0, maximum: 1 });
const DetectionConfigInput = Type.Object(
  { object_flag_threshold: Type.Optional(Threshold), weighted_confidence_threshold: Type.Optional(Threshold) },
  { additionalProperties: false },
);

export const SeedUser = Type.Object(
  {
    email: Email,
    username: Type.String({ minLength: 1, maxLength: 200 }),
    is_admin: Type.Optional(Type.Boolean()),
    password: Type.Optional(Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH })),
  },
  { additionalProperties: false },
);

export const SeedProject = Type.Object(
  {
    id: Uuid,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    date_created: Type.Optional(Type.String({ pattern: RFC3339_PATTERN, description: 'an RFC 3339 date-time' })),
    members: Type.Optional(
      Type.Array(
        Type.Object(
          { email: Email, role: Type.Unsafe<(typeof PROJECT_ROLES)[number]>({ type: 'string', enum: [...PROJECT_ROLES] }) },
          { additionalProperties: false },
        ),
      ),
    ),
    detection_config: Type.Optional(DetectionConfigInput),
  },
  { additionalProperties: false },
);

export const SeedApiClient = Type.Object(
  {
    client_id: Type.String({ minLength: 3, maxLength: 200, pattern: '^[A-Za-z0-9._~-]+$', description: 'letters, digits and . _ ~ -' }),
    client_secret: Type.String({ minLength: 16, maxLength: 512 }),
    user_email: Email,
    name: Type.Optional(Type.String({ maxLength: 200 })),
    scopes: Type.Optional(
      Type.Array(Type.Unsafe<string>({ type: 'string', enum: [...ALL_SCOPES] }), { minItems: 1, uniqueItems: true }),
    ),
  },
  { additionalProperties: false },
);

export const SeedOrganization = Type.Object(
  {
    id: Uuid,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    detection_config: Type.Optional(DetectionConfigInput),
    users: Type.Optional(Type.Array(SeedUser)),
    projects: Type.Optional(Type.Array(SeedProject)),
    api_clients: Type.Optional(Type.Array(SeedApiClient)),
    orders: Type.Optional(Type.Array(OrderInput)),
  },
  { additionalProperties: false },
);

export const SeedObject = Type.Object(
  {
    key: Type.String({ pattern: OBJECT_KEY_PATTERN, description: 'an object key (letters, digits, . _ - /; no leading dot, no ..)' }),
    content_type: Type.String({ pattern: '^[a-z]+/[A-Za-z0-9.+-]+$', description: 'a MIME type' }),
    content_base64: Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$', description: 'base64' }),
  },
  { additionalProperties: false },
);

export const SeedDocument = Type.Object(
  {
    organizations: Type.Array(SeedOrganization),
    objects: Type.Optional(Type.Array(SeedObject)),
  },
  { additionalProperties: false },
);

export type SeedDocumentT = Static<typeof SeedDocument>;
export type SeedOrganizationT = Static<typeof SeedOrganization>;
