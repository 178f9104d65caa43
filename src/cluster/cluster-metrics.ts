/**
 * `/metrics` of a `serve --workers N` cluster: the whole process group, not whichever worker the scrape
 * happened to reach. The worker that answers `/metrics` asks the primary, the primary collects every
 * worker's registry over IPC (prom-client's AggregatorRegistry) and sends back the aggregate: counters and
 * histograms summed, gauges by their `aggregator` (e.g. `certdesk_db_up` is the minimum).
 *
 * @example
 * // primary
 * answerClusterMetricsRequests();
 * // each worker
 * const render = clusterMetricsRenderer(metrics.registry);
 */
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry, type Registry } from 'prom-client';

const REQUEST = 'certdesk:metrics-request';
const REPLY = 'certdesk:metrics-reply';
const TIMEOUT_MS = 5000;

interface MetricsRequest {
  type: typeof REQUEST;
  id: string;
}

interface MetricsReply {
  type: typeof REPLY;
  id: string;
  body?: string;
  error?: string;
}

const isRequest = (m: unknown): m is MetricsRequest => typeof m === 'object' && m !== null && (m as { type?: unknown }).type === REQUEST;
const isReply = (m: unknown): m is MetricsReply => typeof m === 'object' && m !== null && (m as { type?: unknown }).type === REPLY;

/** In the primary: answers each worker's request with the aggregate of every worker's registry. */
export function answerClusterMetricsRequests(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isRequest(message)) return;
    aggregator.clusterMetrics().then(
      (body) => worker.isConnected() && worker.send({ type: REPLY, id: message.id, body } satisfies MetricsReply),
      (err: unknown) => worker.isConnected() && worker.send({ type: REPLY, id: message.id, error: (err as Error).message } satisfies MetricsReply),
    );
  });
}

/**
 * In a worker: offers `registry` to the primary's aggregation and returns the function that renders the
 * cluster-wide exposition text.
 */
export function clusterMetricsRenderer(registry: Registry): () => Promise<{ contentType: string; body: string }> {
  // Constructing one registers prom-client's listener that answers the primary with this worker's metrics.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  const pending = new Map<string, { resolve: (body: string) => void; reject: (err: Error) => void }>();
  process.on('message', (message: unknown) => {
    if (!isReply(message)) return;
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error !== undefined || message.body === undefined) waiter.reject(new Error(`cluster metrics: ${message.error ?? 'no body'}`));
    else waiter.resolve(message.body);
  });
  return async () => {
    const id = randomUUID();
    const body = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('cluster metrics: the primary did not answer'));
      }, TIMEOUT_MS);
      timer.unref();
      pending.set(id, {
        resolve: (b) => (clearTimeout(timer), resolve(b)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      process.send!({ type: REQUEST, id } satisfies MetricsRequest);
    });
    return { contentType: registry.contentType, body };
  };
}
