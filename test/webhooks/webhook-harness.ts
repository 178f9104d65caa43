/**
 * The app and a local receiver as the webhook suites use them: private addresses allowed (the receiver
 * is on 127.0.0.1), a short request deadline and retry waits of milliseconds, since the receivers hang
 * or fail on purpose.
 */
import type { DatabaseHandle } from '../../src/storage/database.js';
import { startApi, type Api } from '../http/api-harness.js';
import { startReceiver, type Receiver } from './receiver.js';

export interface WebhookTestApi {
  api: Api & { dir: string };
  receiver: Receiver;
  close(): Promise<void>;
}

/** Starts both; `env` adds settings (e.g. `{ WORKER_CONCURRENCY: '10' }`). */
export async function startWebhookTestApi(database: DatabaseHandle, env: Record<string, string> = {}): Promise<WebhookTestApi> {
  const timeoutMs = 300;
  const receiver = await startReceiver({ clientTimeoutMs: timeoutMs });
  try {
    const api = await startApi(
      database,
      undefined,
      { webhooks: { timeoutMs, schedule: { baseMs: 5, capMs: 20, windowMs: 3 * 24 * 3_600_000 } } },
      { WEBHOOK_ALLOW_PRIVATE: 'true', ...env },
    );
    return {
      api,
      receiver,
      close: async () => {
        await api.close();
        await receiver.close();
      },
    };
  } catch (err) {
    await receiver.close();
    throw err;
  }
}
