/** What the web routes share: built once per app by the web plugin. */
import type { Config } from '../config.js';
import type { OrdersContext } from '../domain/orders/index.js';
import type { Db } from '../storage/database.js';
import type { SignInRateLimiter } from './session/sign-in-rate-limit.js';

export interface WebDeps {
  config: Config;
  db: Db;
  orders: OrdersContext;
  signInLimiter: SignInRateLimiter;
}
