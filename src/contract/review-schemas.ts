/**
 * Bodies of the review page's JSON endpoints (docs/review.md). `annotations` and `confidence` are the
 * API's own Order schemas (the same TypeBox objects), so an edit the page saves is exactly what
 * GET /v1/orders/{order_id} may answer; `remediation` adds the 0..1 range the seed and import enforce.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Order } from './schemas.js';

const ClaimId = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'The claim the page holds (data-claim-id).' });

export const ReviewEditsRequest = Type.Object(
  {
    claim_id: ClaimId,
    annotations: Type.Optional(Order.properties.annotations),
    remediation: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: '0.0 = not set, 0.5 = not recommended, 1.0 = recommended.' })),
    confidence: Type.Optional(Order.properties.confidence),
  },
  { title: 'ReviewEditsRequest', additionalProperties: false },
);
export type ReviewEditsRequestT = Static<typeof ReviewEditsRequest>;

export const ReviewClaimRequest = Type.Object({ claim_id: ClaimId }, { title: 'ReviewClaimRequest', additionalProperties: false });
export type ReviewClaimRequestT = Static<typeof ReviewClaimRequest>;
