/** What the web routes are given: taken from the process's services (src/app/services.ts) by the web plugin. */
import type { UploadLimits } from '../domain/intake/upload-limits.js';
import type { Config } from '../config.js';
import type { OrdersContext } from '../domain/orders/index.js';
import type { Db } from '../storage/database.js';
import type { FailureLimiter } from '../rate-limit/index.js';
import type { ClientAccessCache } from '../oauth/client-access-cache.js';
import type { ObjectStorage, UploadPresigner } from '../storage/object-storage/index.js';
import type { Clock } from '../domain/time/clock.js';

export interface WebDeps {
  config: Config;
  db: Db;
  orders: OrdersContext;
  signInLimiter: FailureLimiter;
  /** The API's client cache: a credential revoked here stops working on this instance at once. */
  clientAccess: ClientAccessCache;
  /** Uploads and orders from the web (routes/upload-routes.ts): the same storage, signer and clock as the API. */
  storage: ObjectStorage;
  uploadPresigner: UploadPresigner;
  /** Per-user upload limits (the API's, shared). */
  uploadLimits?: UploadLimits;
  clock: Clock;
  /** Wakes this process's worker after an order's analysis was queued. */
  onJobQueued: () => void;
}
