/**
 * Makes every schema that carries an `$id` (the interface's component names) a component of its own and
 * replaces its inline copies with a `$ref`, so the document names Project, DetectionConfig, Order, ...
 * even where the TypeBox schemas nest them inline. `$id`s are removed: in the document a component is
 * identified by its place under components/schemas.
 */
type Json = unknown;

const COMPONENT_PREFIX = '#/components/schemas/';

function isObject(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Rewrites the document in place and returns it. */
export function hoistNamedSchemas<T extends Record<string, unknown>>(document: T): T {
  const doc = document as Record<string, Json>;
  const components = (doc.components ??= {}) as { schemas?: Record<string, Json> };
  const schemas = (components.schemas ??= {});
  const found = new Map<string, Record<string, Json>>();

  const visit = (node: Json, isComponentRoot: boolean): Json => {
    if (Array.isArray(node)) return node.map((n) => visit(n, false));
    if (!isObject(node)) return node;
    const copy: Record<string, Json> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$id') continue;
      copy[key] = visit(value, false);
    }
    // A bare `$ref` to a name (as given to Fastify) points at the component of that name.
    if (typeof copy.$ref === 'string' && !copy.$ref.startsWith('#') && !copy.$ref.includes('/')) {
      copy.$ref = `${COMPONENT_PREFIX}${copy.$ref.replace(/#$/, '')}`;
    }
    const id = node.$id;
    if (typeof id === 'string' && !id.includes('/') && !isComponentRoot) {
      if (!found.has(id)) found.set(id, copy);
      const { description } = copy;
      return typeof description === 'string' && description !== (found.get(id)!.description ?? undefined)
        ? { $ref: `${COMPONENT_PREFIX}${id}`, description }
        : { $ref: `${COMPONENT_PREFIX}${id}` };
    }
    return copy;
  };

  for (const [name, schema] of Object.entries(schemas)) schemas[name] = visit(schema, true);
  for (const key of Object.keys(doc)) if (key !== 'components') doc[key] = visit(doc[key], false);
  // Components met only inline become components; existing ones are kept as they are.
  let added = true;
  while (added) {
    added = false;
    for (const [id, schema] of found) {
      if (!(id in schemas)) {
        schemas[id] = schema;
        added = true;
      }
    }
  }
  return document;
}
