import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import { openStore, type Store } from '../../store/db.ts';
import { catchUpHere } from './searchIndex.ts';
import { watchIdle } from '../../idleMemory.ts';
import { INDEX_THREAD_ROLE, type IndexThreadData, type ToIndexThread } from './indexThread.ts';

/**
 * A catch-up a nudge asks for (a write was committed) that finds more events once a batch reached
 * the end of the log (writes going on) rests REST_FACTOR times as long as that batch took before
 * the next; a request (a search, test mode) does not rest, and a request that comes ends a
 * rest. Back-to-back writes then go in fewer, larger batches, in which a row written again is
 * indexed once: 15 updates of the same 500 rows back to back were indexed one update a batch,
 * and the whole process spent about a third more CPU than with the catch-up on the server's
 * thread (docs/speed.md).
 */
const REST_FACTOR = 3;

/**
 * The search index's thread (indexThread.ts starts it): opens its own connection to the
 * server's database and catches the index up whenever the server asks. Requests that arrive
 * while a catch-up runs are answered by the next one, which begins after they arrived, so each
 * answer covers every event committed before its request was sent.
 */
async function serve(data: IndexThreadData): Promise<void> {
  const port = parentPort!;
  // the thread's log lines go to the server's log (indexThread.ts)
  const logger = pino({ level: data.logLevel }, { write: (line: string) => port.postMessage({ log: line }) });
  let store: Store;
  try {
    store = await openStore({ databaseUrl: data.databaseUrl, dataDir: data.dataDir, lockTimeoutMs: data.lockTimeoutMs, logger, secondary: true });
  } catch (e) {
    port.postMessage({ failed: e instanceof Error ? e.message : String(e) });
    return;
  }
  // requests not yet answered; `asked`: a catch-up is wanted (a request, or a nudge after a write)
  let waiting: number[] = [];
  let asked = false;
  let running = false;
  let stopping = false;
  // `wake` ends a nudge's rest between two batches early (a request, or stop)
  let wake: (() => void) | undefined;
  const rest = (batchMs: number) => new Promise<void>((resolve) => {
    if (waiting.length > 0 || stopping) return resolve();
    const timer = setTimeout(resolve, REST_FACTOR * batchMs);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  }).finally(() => (wake = undefined));
  const run = async () => {
    running = true;
    while (asked) {
      const ids = waiting;
      waiting = [];
      asked = false;
      try {
        // a nudge's catch-up rests between batches while writes go on; a request's does not
        const applied = await catchUpHere(store, ids.length === 0 ? rest : undefined);
        for (const id of ids) port.postMessage({ id, applied });
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        for (const id of ids) port.postMessage({ id, error });
        // a nudge's failure is told once (a request's goes to its caller); the next one tries again
        if (ids.length === 0) logger.error({ err: e }, 'search index: a catch-up failed; the next one tries again');
      }
    }
    running = false;
    if (stopping) await close();
  };
  const close = async () => {
    await store.close().catch(() => undefined);
    port.close();
  };
  port.on('message', (m: ToIndexThread) => {
    if ('stop' in m) {
      stopping = true;
      wake?.();
      if (!running) void close();
      return;
    }
    if ('id' in m) {
      waiting.push(m.id);
      wake?.();
    }
    asked = true;
    if (!running) void run();
  });
  // the garbage of a busy spell (a whole sheet indexed) is given back once the thread is quiet
  const unwatch = watchIdle();
  port.once('close', unwatch);
  port.postMessage({ ready: true });
}

const data = workerData as IndexThreadData | undefined;
if (parentPort !== null && data?.role === INDEX_THREAD_ROLE) await serve(data);
