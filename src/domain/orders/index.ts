/** The orders feature's read surface, shared by the API routes, the web pages and the CLI. */
export { createOrdersContext, type OrdersContext } from './orders-context.js';
export {
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  listOrders,
  listOrdersBody,
  type ListOrdersOptions,
  type ListedOrder,
  type OrderListing,
} from './order-listing.service.js';
export { renderOrdersResponse, toOrderObject, toOrderPreviewObject, orderJson, orderPreviewJson } from './order-response.js';
export { findVisibleOrder, isOrderVisible } from './find-visible-order.js';
export { OrderScopeNotFoundError, projectNamesFor, resolveOrderScope, sortProjectNames, type OrderScope } from './order-scope.js';
export { listVisibleProjects, type VisibleProject } from './visible-projects.repository.js';
export { InvalidPageTokenError } from '../../storage/page-token.js';
