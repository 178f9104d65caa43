/**
 * Registers the contract's schemas (src/contract/schemas.ts) as Fastify shared schemas, which become the
 * document's named components. The TypeBox definitions nest components inline (so each also works on its
 * own, e.g. in the seed loader's Ajv); here every nested component is replaced by a `$ref` to its name,
 * so each `$id` is defined exactly once (Ajv and fast-json-stringify refuse duplicates) and the OpenAPI
 * document says `Order.order_state → HumanOrderState` instead of repeating it.
 *
 * Routes then refer to components with `ref(Schema)` (route-docs.ts), never inline.
 */
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { historyComponentSchemas } from '../../contract/history-schemas.js';
import { componentSchemas } from '../../contract/schemas.js';

type Json = unknown;

/** A JSON copy of a component with every nested named schema replaced by a reference to it. */
export function referencingForm(schema: TSchema): Record<string, Json> {
  const walk = (node: Json, root: boolean): Json => {
    if (Array.isArray(node)) return node.map((n) => walk(n, false));
    if (node === null || typeof node !== 'object') return node;
    const obj = node as Record<string, Json>;
    if (!root && typeof obj.$id === 'string') return { $ref: obj.$id };
    const out: Record<string, Json> = {};
    for (const [key, value] of Object.entries(obj)) out[key] = walk(value, false);
    return out;
  };
  return walk(schema, true) as Record<string, Json>;
}

/** Adds every contract component to the instance (call on the root instance, before routes). */
export function registerComponentSchemas(app: FastifyInstance): void {
  for (const schema of [...componentSchemas, ...historyComponentSchemas]) app.addSchema(referencingForm(schema));
}
