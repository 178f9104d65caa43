/**
 * FastAPI's operation ids: `<function name><path with every non-word character as "_">_<method>`, e.g.
 * `get_project` + `/v1/projects/{project_id}` + GET → `get_project_v1_projects__project_id__get`.
 */

/** An OpenAPI path from a Fastify route pattern: `/v1/projects/:project_id` → `/v1/projects/{project_id}`. */
export function openApiPath(fastifyUrl: string): string {
  return fastifyUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * @example
 * fastapiOperationId('get_orders', '/v1/orders', 'GET') // 'get_orders_v1_orders_get'
 */
export function fastapiOperationId(name: string, path: string, method: string): string {
  return `${name}${openApiPath(path).replace(/\W/g, '_')}_${method.toLowerCase()}`;
}
