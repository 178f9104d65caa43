/**
 * Failure counters in Redis, shared by every instance. A key is a hash `{c: count, r: resetAt}`; the
 * window's end is kept as a value computed from the caller's clock (not only as a TTL), so every instance
 * and every test clock agrees on when it ends. The TTL only collects keys nobody asks about again.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { FailureStore, WindowCount } from './failure-store.js';

// Loaded when a store is made (REDIS_URL set): a process without Redis does not carry the client
// (~15 MB of resident memory in serve). ioredis is CommonJS, so it loads synchronously here.
const loadRedis = (): typeof import('ioredis').Redis => (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;

// Atomic: a failure after the window ended starts a new one; otherwise it only counts.
const INCREMENT = `
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
local r = tonumber(redis.call('HGET', KEYS[1], 'r'))
if (not r) or r <= now then
  r = now + win
  redis.call('HSET', KEYS[1], 'c', 1, 'r', r)
  redis.call('PEXPIRE', KEYS[1], win)
  return {1, r}
end
return {redis.call('HINCRBY', KEYS[1], 'c', 1), r}
`;

export class RedisFailureStore implements FailureStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'certdesk:auth-failures:',
  ) {
    // A limiter must answer fast or not at all: a command that takes longer than 500 ms fails (and the
    // limiter lets the request through) instead of holding up token issuance or sign-in.
    const Client = loadRedis();
    this.redis = new Client(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 500 });
    // Connection errors surface as failed commands; without a listener ioredis would log them itself.
    this.redis.on('error', () => undefined);
  }

  async increment(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const [count, resetAt] = (await this.redis.eval(INCREMENT, 1, this.prefix + key, now, windowMs)) as [number, number];
    return { count: Number(count), resetAt: Number(resetAt) };
  }

  async peekMany(keys: readonly string[], now: number): Promise<Array<WindowCount | null>> {
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.hmget(this.prefix + key, 'c', 'r');
    const results = (await pipeline.exec()) ?? [];
    return results.map(([err, value]) => {
      if (err) throw err;
      const [c, r] = value as [string | null, string | null];
      if (c === null || r === null || Number(r) <= now) return null;
      return { count: Number(c), resetAt: Number(r) };
    });
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
