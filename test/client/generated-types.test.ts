/**
 * The TypeScript client's generated types (clients/typescript/src/generated/openapi.ts) are what
 * openapi-typescript makes of the OpenAPI document the application serves now: a route or schema change
 * without `npm run generate -w @certdesk/client` fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { generateTypes, GENERATED_TYPES_PATH } from '../../clients/typescript/scripts/generate-types.mjs';
import { servedOpenApiDocument } from '../../scripts/openapi-document.js';

describe('the TypeScript client\'s generated types', () => {
  it('match the OpenAPI document the server serves now', async () => {
    const document = await servedOpenApiDocument();
    const expected = await generateTypes(document);
    const committed = readFileSync(GENERATED_TYPES_PATH, 'utf8');
    assert.ok(committed.includes('"/v1/orders"'), 'the committed types describe the orders route');
    assert.equal(committed, expected, 'clients/typescript/src/generated/openapi.ts is out of date: run `npm run generate -w @certdesk/client` and commit it');
  });
});
