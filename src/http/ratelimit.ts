import type { Redis } from 'ioredis';
import { clock } from '../clock.ts';
import { redisClient } from '../pubsub/redis.ts';

/**
 * Per-token request budget: a rolling limit of `limit` units a minute (GCRA, the generic cell
 * rate algorithm, which is a token bucket kept as one number). Each token has a theoretical
 * arrival time (TAT): the moment its bucket would be full again. A request of cost c moves the
 * TAT on by c emission intervals (one minute / limit each) from max(TAT, now); it passes when the
 * new TAT lies at most one minute ahead of now, so a rested token can spend the whole minute's
 * budget at once and then gets one unit back every interval. A refused request changes nothing,
 * and its `retryAfter` is the seconds until the same request would pass (rounded up, at least 1).
 *
 * In-process by default; shared by every sheetd process through Redis when REDIS_URL is set
 * (one Lua script decides and records atomically).
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until this request would pass (the Retry-After header); meaningful when refused. */
  retryAfter: number;
}

export interface RateLimiter {
  /** The decision, at once where the limiter decides in this process (memory), else as a promise (Redis). */
  consume(key: string, cost: number, limit: number, now?: number): RateDecision | Promise<RateDecision>;
  /** Whether `consume` with these arguments would pass now, recording nothing (sign-in asks before it counts a failure). */
  check(key: string, cost: number, limit: number, now?: number): Promise<RateDecision>;
  close(): Promise<void>;
}

export const PERIOD_MS = 60_000;

/** A request that passed (one object for all: decisions are only read). */
const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfter: 0 });

/**
 * The step both limiters take: the new TAT, or the milliseconds to wait. A cost above the whole
 * budget counts as the whole budget (it passes once the bucket is full), so that no request is
 * refused for ever with a Retry-After that promises otherwise.
 */
export function gcra(tat: number, now: number, cost: number, limit: number): { tat: number; waitMs: number } {
  const interval = PERIOD_MS / Math.max(1, limit);
  // a TAT more than a minute ahead cannot have been written at this time: the clock went back
  // (test mode's clock, a corrected system clock). The token counts as rested.
  const from = tat > now + PERIOD_MS ? now : Math.max(tat, now);
  const next = from + Math.min(cost, limit) * interval;
  const waitMs = next - PERIOD_MS - now;
  return waitMs > 0 ? { tat, waitMs } : { tat: next, waitMs: 0 };
}

export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

export class MemoryRateLimiter implements RateLimiter {
  private tats = new Map<string, number>();
  private lastSweep = 0;

  consume(key: string, cost: number, limit: number, now = clock.now()): RateDecision {
    if (now - this.lastSweep >= PERIOD_MS || now < this.lastSweep) {
      // a TAT in the past is a full bucket, the same as no entry: keep the map as small as the
      // set of tokens active in the last minute
      for (const [k, t] of this.tats) if (t <= now) this.tats.delete(k);
      this.lastSweep = now;
    }
    const step = gcra(this.tats.get(key) ?? 0, now, cost, limit);
    if (step.waitMs > 0) return { allowed: false, retryAfter: retryAfterSeconds(step.waitMs) };
    this.tats.set(key, step.tat);
    return ALLOWED;
  }

  async check(key: string, cost: number, limit: number, now = clock.now()): Promise<RateDecision> {
    const step = gcra(this.tats.get(key) ?? 0, now, cost, limit);
    return step.waitMs > 0 ? { allowed: false, retryAfter: retryAfterSeconds(step.waitMs) } : { allowed: true, retryAfter: 0 };
  }

  async close(): Promise<void> {
    this.tats.clear();
  }

  /** Forgets every token's state (test mode's reset). */
  reset(): void {
    this.tats.clear();
  }
}

// The same step as gcra() above, atomically in Redis. ARGV: now (ms), cost, limit, period (ms),
// record (1: store the new TAT when the request passes; 0: only decide). Returns 0 when the request passed (the new TAT is stored, expiring once the bucket is full
// again), else the milliseconds to wait, rounded up. The TAT is kept with three decimals: an
// interval of one minute / limit is seldom a whole number of milliseconds.
const GCRA_LUA = `
local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local period = tonumber(ARGV[4])
if limit < 1 then limit = 1 end
if cost > limit then cost = limit end
local tat = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if tat < now or tat > now + period then tat = now end
local nexttat = tat + cost * (period / limit)
local wait = nexttat - period - now
if wait > 0 then return math.ceil(wait) end
if tonumber(ARGV[5]) == 0 then return 0 end
redis.call('SET', KEYS[1], string.format('%.3f', nexttat), 'PX', math.ceil(nexttat - now) + 1000)
return 0
`;

export class RedisRateLimiter implements RateLimiter {
  private redis: Redis;
  private prefix: string;

  constructor(redis: Redis, prefix = 'sheetd:rl:') {
    this.redis = redis;
    this.redis.defineCommand('sheetdGcra', { numberOfKeys: 1, lua: GCRA_LUA });
    this.prefix = prefix;
  }

  consume(key: string, cost: number, limit: number, now = clock.now()): Promise<RateDecision> {
    return this.step(key, cost, limit, now, 1);
  }

  async check(key: string, cost: number, limit: number, now = clock.now()): Promise<RateDecision> {
    return this.step(key, cost, limit, now, 0);
  }

  private async step(key: string, cost: number, limit: number, now: number, record: 0 | 1): Promise<RateDecision> {
    const run = (this.redis as unknown as { sheetdGcra(k: string, ...a: number[]): Promise<number> }).sheetdGcra;
    const waitMs = Number(await run.call(this.redis, `${this.prefix}${key}`, now, cost, limit, PERIOD_MS, record));
    return waitMs > 0 ? { allowed: false, retryAfter: retryAfterSeconds(waitMs) } : { allowed: true, retryAfter: 0 };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}

export async function createRateLimiter(redisUrl: string | undefined, prefix?: string): Promise<RateLimiter> {
  return redisUrl ? new RedisRateLimiter(await redisClient(redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false }), prefix) : new MemoryRateLimiter();
}
