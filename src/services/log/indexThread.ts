import { Worker } from 'node:worker_threads';
import type pino from 'pino';
import type { Store } from '../../store/db.ts';
import { delegateCatchUp, stopDelegating, type IndexCatchUp } from './searchIndex.ts';

/**
 * The search index's own thread. The index follows the change log (searchIndex.ts): after a
 * write, its catch-up reads the rows the events name, builds their docs (text and words) and
 * writes them, FTS5 on SQLite. On the server's thread that was a third of the CPU of adding
 * rows, and a job worker's wake-up after a burst of writes held the event loop, and every
 * request, for as long as it took (docs/speed.md, seventeenth session). A server runs it on a
 * worker thread with its own connection to the database instead: searches and the job worker
 * ask it (catchUpSearchIndex) and wait for its answer without holding anything up.
 *
 * On SQLite the thread's write transactions take the database's write lock, for the writes of
 * the docs only (DeferredDocs); the server's transactions that find it held wait in turns of the
 * event loop (store/db.ts, WaitingSqliteDialect). When the thread cannot start or dies, the
 * catch-up runs on the server's thread again, as without one.
 */
export const INDEX_THREAD_ROLE = 'sheetd-search-index';

/** What the thread gets (workerData). */
export interface IndexThreadData {
  role: typeof INDEX_THREAD_ROLE;
  databaseUrl: string | undefined;
  dataDir: string;
  lockTimeoutMs: number;
  logLevel: string;
}

/** Messages to the thread: a catch-up request, a nudge (a catch-up, unanswered), or stop (after answering what it was asked). */
export type ToIndexThread = { id: number } | { nudge: true } | { stop: true };

/** Messages from the thread. */
type FromIndexThread = { ready: true } | { failed: string } | { id: number; applied: number } | { id: number; error: string } | { log: string };

/** How long after a sheet write the thread is nudged to catch up (IndexThread.written). */
const NUDGE_MS = 50;

export interface IndexThread extends IndexCatchUp {
  /** Resolves once the thread has its connection and catches the index up (false: it could not start, and the catch-up stays here). */
  readonly ready: Promise<boolean>;
  /**
   * Events were committed (a sheet write): the thread catches up NUDGE_MS later, rather than at
   * the job worker's next wake-up (writes meanwhile go in the same catch-up). So it catches up in
   * batches of about one write each, holding SQLite's write lock briefly, and not while the
   * write is being answered: begun at the commit, or when the answer was handed to the socket,
   * the catch-up made an update of 500 rows answer 8 to 14 ms later on a 2-core machine
   * (docs/speed.md, the seventeenth session).
   */
  written(): void;
  stop(): Promise<void>;
}

/**
 * Starts the thread. Once its connection is open (`ready`) it catches `store`'s index up
 * (delegateCatchUp); until then, and for good when it cannot start (logged), callers do.
 */
export function startIndexThread(store: Store, opts: {
  /** The script the thread runs: bin/sheetd.js (web/paths.ts), which runs the thread's part when workerData names its role. */
  entry: string;
  databaseUrl: string | undefined;
  dataDir: string;
  lockTimeoutMs: number;
  logger?: pino.Logger | undefined;
}): IndexThread {
  const log = opts.logger;
  const data: IndexThreadData = { role: INDEX_THREAD_ROLE, databaseUrl: opts.databaseUrl, dataDir: opts.dataDir, lockTimeoutMs: opts.lockTimeoutMs, logLevel: log?.level ?? 'silent' };
  // The thread loads only what it runs (bin/sheetd.js), not the process's --import hooks. Its
  // young generation is kept small (V8 grows it to 32 MB in a busy spell): its garbage is
  // short-lived docs, and what a busy spell holds is the process's memory too.
  const worker = new Worker(opts.entry, { workerData: data, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 8 } });
  // a thread left running does not keep the process alive (stop() ends it)
  worker.unref();
  const pending = new Map<number, { resolve: (n: number) => void; reject: (e: Error) => void }>();
  let next = 1;
  // the nudge to come after a sheet write (written)
  let nudging: NodeJS.Timeout | undefined;
  let gone: Error | undefined;
  let ready: (ok: boolean) => void = () => {};
  const started = new Promise<boolean>((r) => (ready = r));
  const exited = new Promise<void>((r) => worker.once('exit', () => r()));

  const end = (err: Error) => {
    if (gone !== undefined) return;
    gone = err;
    stopDelegating(store, thread);
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    ready(false);
  };
  worker.on('message', (m: FromIndexThread) => {
    if ('log' in m) return relay(log, m.log);
    if ('ready' in m) return ready(true);
    if ('failed' in m) {
      log?.error({ error: m.failed }, 'search index: its thread could not open the database; the index is caught up on the server thread');
      return end(new Error(m.failed));
    }
    const p = pending.get(m.id);
    if (p === undefined) return;
    pending.delete(m.id);
    if ('error' in m) p.reject(new Error(m.error));
    else p.resolve(m.applied);
  });
  worker.on('error', (err) => {
    log?.error({ err }, 'search index: its thread failed; the index is caught up on the server thread from now on');
    end(err);
  });
  worker.on('exit', (code) => end(new Error(`the search index's thread ended (exit code ${code})`)));

  const thread: IndexThread = {
    ready: started,
    catchUp() {
      if (gone !== undefined) return Promise.reject(gone);
      const id = next++;
      return new Promise<number>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id } satisfies ToIndexThread);
      });
    },
    written() {
      if (nudging !== undefined || gone !== undefined || stopped || !delegated) return;
      nudging = setTimeout(() => {
        nudging = undefined;
        if (gone === undefined && !stopped) worker.postMessage({ nudge: true } satisfies ToIndexThread);
      }, NUDGE_MS);
      nudging.unref();
    },
    async stop() {
      stopped = true;
      clearTimeout(nudging);
      stopDelegating(store, thread);
      if (await started) {
        worker.postMessage({ stop: true } satisfies ToIndexThread);
        // it answers what it was asked, closes its connection and ends; if it does not, it is ended
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
        clearTimeout(timer);
      }
      await worker.terminate().catch(() => undefined);
    },
  };
  let stopped = false;
  let delegated = false;
  void started.then((ok) => {
    if (ok && !stopped) {
      delegated = true;
      delegateCatchUp(store, thread);
    }
    else void worker.terminate().catch(() => undefined);
  });
  return thread;
}

/** A log line of the thread (pino's JSON) into the server's log. */
function relay(log: pino.Logger | undefined, line: string): void {
  if (log === undefined) return;
  try {
    const { level, msg, time: _time, pid: _pid, hostname: _host, ...fields } = JSON.parse(line) as { level: number; msg?: string; time?: unknown; pid?: unknown; hostname?: unknown };
    const label = log.levels.labels[level] as pino.Level | undefined;
    log[label ?? 'info']({ ...fields, thread: 'search index' }, msg ?? '');
  } catch {
    log.info({ thread: 'search index' }, line.trim());
  }
}
