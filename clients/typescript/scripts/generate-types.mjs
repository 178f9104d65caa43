// Turns the served OpenAPI document into the client's generated types (src/generated/openapi.ts) with
// openapi-typescript. Shared by `npm run generate` and the test that fails when the committed types
// differ from what the server serves now (test/client/generated-types.test.ts at the repository root).
import openapiTS, { astToString } from 'openapi-typescript';

export const GENERATED_TYPES_PATH = new URL('../src/generated/openapi.ts', import.meta.url);

const HEADER = `// GENERATED from certdesk's served OpenAPI document (GET /openapi.json) by openapi-typescript.
// Do not edit: run \`npm run generate -w @certdesk/client\`. A test fails when this file is out of date.
/* eslint-disable */
`;

/** The text of src/generated/openapi.ts for an OpenAPI document (parsed JSON). */
export async function generateTypes(document) {
  const ast = await openapiTS(document, { alphabetize: true, silent: true });
  return HEADER + astToString(ast);
}
