/**
 * Final touches on the generated document, so every operation tells the whole truth whatever its route
 * declared: FastAPI's response descriptions ("Successful Response", "Validation Error") instead of the
 * generator's "Default Response", and the 401/403 answers of the bearer check on every secured operation.
 */
const DESCRIPTIONS: Record<string, string> = {
  '200': 'Successful Response',
  '401': 'Missing, invalid or expired access token.',
  '403': 'The access token does not grant the required scope.',
  '404': 'Not found, or not visible to the caller.',
  '422': 'Validation Error',
};

type Json = Record<string, unknown>;

const errorDetail = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDetail' } } },
});

/** Rewrites the document's operations in place and returns it. */
export function completeResponses<T extends Record<string, unknown>>(document: T): T {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      if (operation === null || typeof operation !== 'object' || !('responses' in operation)) continue;
      const responses = operation.responses as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        if (response.description === 'Default Response' && DESCRIPTIONS[status]) response.description = DESCRIPTIONS[status];
      }
      if (Array.isArray(operation.security) && operation.security.length > 0) {
        responses['401'] ??= errorDetail(DESCRIPTIONS['401']!);
        responses['403'] ??= errorDetail(DESCRIPTIONS['403']!);
      }
    }
  }
  return document;
}
