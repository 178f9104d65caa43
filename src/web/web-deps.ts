/** What the web routes share: built once per app by the web plugin. */
import type { Config } from '../config.js';
import type { OrdersContext } from '../domain/orders/index.js';
import type { Db } from '../storage/database.js';
import type { FailureLimiter } from '../rate-limit/index.js';

export interface WebDeps {
  config: Config;
  db: Db;
  orders: OrdersContext;
  signInLimiter: FailureLimiter;
}
