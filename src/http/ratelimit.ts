import { Redis } from 'ioredis';
import { clock } from '../clock.ts';

/**
 * Per-token request budget over fixed one-minute windows. In-process by default; shared by
 * every sheetd process through Redis when REDIS_URL is set.
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until the current window ends (the Retry-After header). */
  retryAfter: number;
}

export interface RateLimiter {
  consume(key: string, cost: number, limit: number, now?: number): Promise<RateDecision>;
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;

export class MemoryRateLimiter implements RateLimiter {
  private windows = new Map<string, { start: number; used: number }>();
  private lastSweep = 0;

  async consume(key: string, cost: number, limit: number, now = clock.now()): Promise<RateDecision> {
    const start = now - (now % WINDOW_MS);
    if (start !== this.lastSweep) {
      // drop windows of earlier minutes so the map stays as small as the active token set
      for (const [k, w] of this.windows) if (w.start < start) this.windows.delete(k);
      this.lastSweep = start;
    }
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      w = { start, used: 0 };
      this.windows.set(key, w);
    }
    const retryAfter = Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000));
    if (w.used + cost > limit) return { allowed: false, retryAfter };
    w.used += cost;
    return { allowed: true, retryAfter };
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  /** Forgets every window (test mode's reset). */
  reset(): void {
    this.windows.clear();
  }
}

// Adds the cost only when it fits, atomically; returns the count before and the TTL.
const CONSUME_LUA = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local cost = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
if used + cost > limit then return 0 end
redis.call('INCRBY', KEYS[1], cost)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

export class RedisRateLimiter implements RateLimiter {
  private redis: Redis;
  private prefix: string;

  constructor(url: string, prefix = 'sheetd:rl:') {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.prefix = prefix;
  }

  async consume(key: string, cost: number, limit: number, now = clock.now()): Promise<RateDecision> {
    const start = now - (now % WINDOW_MS);
    const retryAfter = Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000));
    const k = `${this.prefix}${key}:${start}`;
    const ok = (await this.redis.eval(CONSUME_LUA, 1, k, cost, limit, WINDOW_MS + 5000)) as number;
    return { allowed: ok === 1, retryAfter };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}

export function createRateLimiter(redisUrl: string | undefined, prefix?: string): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl, prefix) : new MemoryRateLimiter();
}
