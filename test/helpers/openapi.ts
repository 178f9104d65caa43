/**
 * Validates responses against the OpenAPI document an application serves (GET /openapi.json), so route
 * tests prove that what the service answers is what it documents.
 *
 * @example
 * const openapi = await OpenApiValidator.fromApp(app);
 * const res = await app.inject({ url: '/v1/projects', headers });
 * openapi.assertResponse('get_projects_v1_projects_get', res.statusCode, res.json());
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

type Json = Record<string, unknown>;

const DOCUMENT_ID = 'https://certdesk.test/openapi.json';

function pointerEscape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  /** operationId → JSON pointer of the operation in the document. */
  private readonly operations = new Map<string, { path: string; method: string; pointer: string }>();

  constructor(readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(item)) {
        const id = operation?.operationId;
        if (typeof id === 'string') this.operations.set(id, { path, method, pointer: `#/paths/${pointerEscape(path)}/${method}` });
      }
    }
  }

  /** Fetches the document the application serves. */
  static async fromApp(app: FastifyInstance): Promise<OpenApiValidator> {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
    return new OpenApiValidator(res.json() as Json);
  }

  operationIds(): string[] {
    return [...this.operations.keys()];
  }

  /** The operation object of an operation id. */
  operation(operationId: string): Json {
    const op = this.operations.get(operationId);
    if (!op) throw new Error(`no operation ${operationId} in the document (has: ${this.operationIds().join(', ')})`);
    return ((this.document.paths as Record<string, Record<string, Json>>)[op.path]![op.method]) as Json;
  }

  /** Throws (with Ajv's errors) unless `body` is a documented response of the operation for `status`. */
  assertResponse(operationId: string, status: number, body: unknown, contentType = 'application/json'): void {
    const responses = (this.operation(operationId).responses ?? {}) as Record<string, Json>;
    const key = String(status) in responses ? String(status) : `${String(status)[0]}XX` in responses ? `${String(status)[0]}XX` : 'default';
    let response = responses[key];
    if (!response) throw new Error(`${operationId}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
    // A shared response (`$ref: '#/components/responses/X'`) is validated where it is defined.
    const sharedRef = typeof response.$ref === 'string' ? (response.$ref as string) : null;
    if (sharedRef) {
      const name = sharedRef.replace('#/components/responses/', '');
      response = ((this.document.components as Record<string, Record<string, Json>> | undefined)?.responses?.[name]) as Json;
      if (!response) throw new Error(`${operationId} ${status}: ${sharedRef} is not defined`);
    }
    const content = (response.content ?? {}) as Record<string, Json>;
    if (!content[contentType]) throw new Error(`${operationId} ${status}: no ${contentType} schema documented`);
    const op = this.operations.get(operationId)!;
    const ref = sharedRef
      ? `${DOCUMENT_ID}${sharedRef}/content/${pointerEscape(contentType)}/schema`
      : `${DOCUMENT_ID}${op.pointer}/responses/${key}/content/${pointerEscape(contentType)}/schema`;
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    if (!validate(body)) {
      throw new Error(`${operationId} ${status}: response does not match the document: ${this.ajv.errorsText(validate.errors, { separator: '\n' })}\n${JSON.stringify(body).slice(0, 2000)}`);
    }
  }
}
