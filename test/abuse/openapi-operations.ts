/**
 * The operations an OpenAPI document lists, flattened for generators: path template, method, parameters
 * (with `$ref`s resolved) and the request body's media types. Both abuse suites walk this list, so a route
 * added to the application (and so to its served document) is fuzzed and probed without editing them.
 *
 * @example
 * const ops = listOperations(api.openapi.document);
 * const reads = ops.filter((op) => op.method === 'GET');
 */

export type JsonSchema = Record<string, unknown>;

export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  operationId: string | null;
  /** The path template as documented, e.g. `/v1/projects/{project_id}`. */
  path: string;
  /** Upper case, e.g. `GET`. */
  method: string;
  parameters: OperationParameter[];
  /** Media type → schema of the request body, when the operation takes one. */
  body: Record<string, JsonSchema> | null;
  bodyRequired: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Follows local `$ref`s (`#/components/...`) until a schema without one. */
export function resolveRef(document: JsonSchema, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let depth = 0; typeof current.$ref === 'string' && depth < 32; depth++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/')) throw new Error(`non-local $ref ${ref}`);
    let target: unknown = document;
    for (const part of ref.slice(2).split('/')) {
      target = (target as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    if (!target || typeof target !== 'object') throw new Error(`unresolvable $ref ${ref}`);
    current = target as JsonSchema;
  }
  return current;
}

export function listOperations(document: JsonSchema): Operation[] {
  const out: Operation[] = [];
  for (const [path, rawItem] of Object.entries((document.paths ?? {}) as Record<string, JsonSchema>)) {
    const item = resolveRef(document, rawItem);
    const shared = (item.parameters ?? []) as JsonSchema[];
    for (const method of METHODS) {
      const op = item[method] as JsonSchema | undefined;
      if (!op) continue;
      const parameters = [...shared, ...((op.parameters ?? []) as JsonSchema[])].map((raw) => {
        const p = resolveRef(document, raw);
        return {
          name: String(p.name),
          in: p.in as OperationParameter['in'],
          required: p.required === true || p.in === 'path',
          schema: resolveRef(document, (p.schema ?? {}) as JsonSchema),
        };
      });
      let body: Operation['body'] = null;
      let bodyRequired = false;
      if (op.requestBody) {
        const rb = resolveRef(document, op.requestBody as JsonSchema);
        bodyRequired = rb.required === true;
        body = {};
        for (const [mediaType, media] of Object.entries((rb.content ?? {}) as Record<string, JsonSchema>)) {
          body[mediaType] = (media.schema ?? {}) as JsonSchema;
        }
      }
      out.push({ operationId: typeof op.operationId === 'string' ? op.operationId : null, path, method: method.toUpperCase(), parameters, body, bodyRequired });
    }
  }
  return out;
}

/** The path template with each `{name}` replaced by `encode(values[name])`. */
export function fillPath(template: string, values: Record<string, string>, encode: (v: string) => string = encodeURIComponent): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encode(values[name] ?? ''));
}
