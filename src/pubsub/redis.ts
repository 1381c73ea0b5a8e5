import type { Redis, RedisOptions } from 'ioredis';

/**
 * A Redis client (ioredis) for REDIS_URL. The library is loaded when the first client is made, so
 * a server without Redis does not hold its code (about 2 MB of heap).
 */
export async function redisClient(url: string, options: RedisOptions = {}): Promise<Redis> {
  const { Redis } = await import('ioredis');
  return new Redis(url, options);
}
