import type pino from 'pino';
import { redisClient } from './redis.ts';

/**
 * The messages of live collaboration between the processes of a cluster (REDIS_URL): "the change
 * log moved" (wake) and who has which sheet open (presence). Without Redis the bus is this
 * process alone and a message reaches its own handlers on the next tick.
 *
 * Nothing here is the truth: a wake only says "read the change log now" (a lost one is caught by
 * the streams' slow poll), and presence is re-announced every few seconds and forgotten when it
 * is not.
 */
export type LiveTopic = 'wake' | 'presence';

export interface LiveBus {
  /** Sends to every process, this one included. */
  publish(topic: LiveTopic, message: string): void;
  on(topic: LiveTopic, handler: (message: string) => void): void;
  /** Whether other processes may hear (Redis is configured). */
  readonly shared: boolean;
  close(): Promise<void>;
}

export async function startLiveBus(redisUrl: string | undefined, prefix: string, logger?: pino.Logger | false): Promise<LiveBus> {
  const handlers = new Map<LiveTopic, Array<(m: string) => void>>();
  const deliver = (topic: LiveTopic, message: string) => {
    for (const h of handlers.get(topic) ?? []) {
      try {
        h(message);
      } catch (err) {
        if (logger) logger.error({ err, topic }, 'live collaboration: a bus handler failed');
      }
    }
  };
  const on = (topic: LiveTopic, handler: (m: string) => void) => {
    const list = handlers.get(topic) ?? [];
    list.push(handler);
    handlers.set(topic, list);
  };
  if (!redisUrl) {
    return {
      shared: false,
      publish: (topic, message) => void setImmediate(() => deliver(topic, message)),
      on,
      close: async () => {},
    };
  }
  const channel = (t: LiveTopic) => `${prefix}live:${t}`;
  const topics: LiveTopic[] = ['wake', 'presence'];
  const pub = await redisClient(redisUrl, { maxRetriesPerRequest: 2 });
  const sub = await redisClient(redisUrl);
  let lastWarn = 0;
  const warn = (err: Error) => {
    const now = Date.now();
    if (!logger || now - lastWarn < 60_000) return;
    lastWarn = now;
    logger.warn({ err }, 'live collaboration: Redis unavailable (streams catch up by their slow poll; presence of other processes is not seen)');
  };
  pub.on('error', warn);
  sub.on('error', warn);
  sub.subscribe(...topics.map(channel)).catch(warn);
  sub.on('message', (ch: string, message: string) => {
    const topic = topics.find((t) => channel(t) === ch);
    if (topic) deliver(topic, message);
  });
  return {
    shared: true,
    publish: (topic, message) => void pub.publish(channel(topic), message).catch(warn),
    on,
    async close() {
      await Promise.all([pub.quit().catch(() => undefined), sub.quit().catch(() => undefined)]);
    },
  };
}
