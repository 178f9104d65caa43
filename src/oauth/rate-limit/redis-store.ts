/** Failure counters in Redis, shared by every instance: INCR and the window's expiry in one script. */
import { Redis } from 'ioredis';
import type { FailureStore, WindowCount } from './failure-store.js';

// Atomic: the first failure of a window sets its expiry; later ones only count.
const INCREMENT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}
`;

export class RedisFailureStore implements FailureStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'certdesk:auth-failures:',
  ) {
    // A limiter must answer fast or not at all: a command that takes longer than 500 ms fails (and the
    // limiter lets the request through) instead of holding up token issuance.
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 500 });
    // Connection errors surface as failed commands; without a listener ioredis would log them itself.
    this.redis.on('error', () => undefined);
  }

  async increment(key: string, windowMs: number): Promise<WindowCount> {
    const [count, ttl] = (await this.redis.eval(INCREMENT, 1, this.prefix + key, windowMs)) as [number, number];
    return { count: Number(count), resetInMs: Number(ttl) };
  }

  async peek(key: string): Promise<WindowCount | null> {
    const [[, count], [, ttl]] = (await this.redis.multi().get(this.prefix + key).pttl(this.prefix + key).exec()) as [
      [Error | null, string | null],
      [Error | null, number],
    ];
    if (count === null || ttl < 0) return null;
    return { count: Number(count), resetInMs: ttl };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
