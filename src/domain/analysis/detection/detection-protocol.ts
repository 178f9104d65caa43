/**
 * The JSON protocol certdesk speaks with an external AI detection service (docs/detection-service.md).
 *
 * Request: `POST <AI_DETECTION_URL>`, `Authorization: Bearer <AI_DETECTION_KEY>`, `Content-Type` the
 * image's (`image/png`, `image/jpeg` or `image/webp`), body the image bytes.
 * Response 200 `application/json`: `{ "score": 0.82, "regions": [ { "label", "confidence",
 * "geometry": { "type": "RECTANGLE", "x", "y", "w", "h" } | { "type": "POLYGON", "points": [[x, y], ...] } } ] }`
 * with every coordinate normalized to 0..1 of the image's width and height (origin top left), and `score`
 * the service's overall, weighted likelihood that the image is AI-generated. Anything else is an error.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const Unit = Type.Number({ minimum: 0, maximum: 1 });

export const RectangleGeometry = Type.Object({ type: Type.Literal('RECTANGLE'), x: Unit, y: Unit, w: Unit, h: Unit });
export const PolygonGeometry = Type.Object({
  type: Type.Literal('POLYGON'),
  points: Type.Array(Type.Tuple([Unit, Unit]), { minItems: 3, maxItems: 1000 }),
});

export const DetectionRegion = Type.Object({
  label: Type.String({ minLength: 1, maxLength: 200 }),
  confidence: Unit,
  geometry: Type.Union([RectangleGeometry, PolygonGeometry]),
});

export const DetectionResponse = Type.Object({
  score: Unit,
  regions: Type.Array(DetectionRegion, { maxItems: 1000 }),
});

export type DetectionRegionT = Static<typeof DetectionRegion>;
export type DetectionResponseT = Static<typeof DetectionResponse>;

/** Content types the service is sent (other formats go as certdesk's JPEG preview). */
export const DETECTION_IMAGE_TYPES: Readonly<Record<string, string>> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

export class DetectionProtocolError extends Error {
  override name = 'DetectionProtocolError';
}

/** Checks a parsed response against the protocol (a rectangle must also stay inside the image). */
export function parseDetectionResponse(body: unknown): DetectionResponseT {
  if (!Value.Check(DetectionResponse, body)) {
    const first = Value.Errors(DetectionResponse, body).First();
    throw new DetectionProtocolError(`detection service answered outside the protocol${first ? ` at ${first.path || '/'}: ${first.message}` : ''}`);
  }
  for (const [i, region] of body.regions.entries()) {
    const g = region.geometry;
    if (g.type === 'RECTANGLE' && (g.x + g.w > 1 + 1e-9 || g.y + g.h > 1 + 1e-9)) {
      throw new DetectionProtocolError(`detection service answered outside the protocol at /regions/${i}/geometry: rectangle leaves the image`);
    }
  }
  return body;
}

/** The outbound port: the HTTP adapter implements it (src/integrations/detection-service). */
export interface DetectionService {
  detect(image: { bytes: Buffer; contentType: string }, signal: AbortSignal): Promise<DetectionResponseT>;
  /** Largest image the adapter sends. */
  readonly maxRequestBytes: number;
}
