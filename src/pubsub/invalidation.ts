import type pino from 'pino';
import { randomString } from '../ids.ts';
import { redisClient } from './redis.ts';

/**
 * Cross-process cache invalidation through Redis pub/sub (when REDIS_URL is set).
 *
 * Each process keeps loaded sheets in memory (services/sheets/sheetCache.ts), and every read compares
 * the cached version with the database's: that check is what keeps a read correct, here or in
 * any other process. On top of it, a process that commits a sheet write publishes the sheet
 * and its new version right after the commit, and the others drop an older copy at once,
 * instead of holding its memory until a reader or the cache's size pushes it out. Publishing
 * is fire and forget, straight after the commit rather than through the jobs table: a lost
 * message costs memory for a while, never a stale read, so it is not worth a durable job (a
 * row written, claimed and deleted) per write.
 */
export interface Invalidation {
  /**
   * After a sheet write of this process committed: announces the new version of each sheet it
   * changed to the other processes (server.ts makes it a commit step of the write pipeline).
   */
  committed(sheets: ReadonlyArray<{ changed: boolean; sheet: { id: number; version: number } }>): void;
  close(): Promise<void>;
}

/** Message on the channel: `<origin> <sheetId> <version>`. */
function parse(message: string): { origin: string; sheetId: number; version: number } | null {
  const [origin, sheetId, version] = message.split(' ');
  const id = Number(sheetId);
  const v = Number(version);
  return origin && Number.isSafeInteger(id) && Number.isSafeInteger(v) ? { origin, sheetId: id, version: v } : null;
}

/**
 * `forgetOlder` is the sheet cache of this process (services/sheets/sheetCache.ts), handed in by
 * server.ts: pubsub sits below services and does not import them.
 */
export async function startInvalidation(redisUrl: string | undefined, prefix: string, forgetOlder: (sheetId: number, version: number) => void, logger?: pino.Logger | false): Promise<Invalidation> {
  if (!redisUrl) return { committed: () => {}, close: async () => {} };
  const channel = `${prefix}sheets`;
  const origin = randomString(12);
  const pub = await redisClient(redisUrl, { maxRetriesPerRequest: 2 });
  const sub = await redisClient(redisUrl);
  const warn = (err: Error) => logger && logger.warn({ err }, 'cache invalidation: Redis unavailable (reads stay correct; other processes drop stale sheets later)');
  pub.on('error', warn);
  sub.on('error', warn);
  sub.subscribe(channel).catch(warn);
  sub.on('message', (_ch: string, message: string) => {
    const m = parse(message);
    if (m && m.origin !== origin) forgetOlder(m.sheetId, m.version);
  });
  return {
    committed(sheets) {
      for (const s of sheets) if (s.changed) void pub.publish(channel, `${origin} ${s.sheet.id} ${s.sheet.version}`).catch(warn);
    },
    async close() {
      await Promise.all([pub.quit().catch(() => undefined), sub.quit().catch(() => undefined)]);
    },
  };
}
