import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * SQLite checkpoints off the event loop. In WAL mode a commit only appends to the -wal file; a
 * checkpoint copies those pages into the database file and syncs it (synchronous = NORMAL syncs
 * only there). SQLite runs one automatically inside the commit that takes the WAL past
 * `wal_autocheckpoint` pages: that request's answer then waits for the copy and the sync (one
 * write in ten of a 25,000-row sheet's adds, 100 ms and more on a slow disk), and so does every
 * other request of the process, since better-sqlite3 is synchronous.
 *
 * Instead, one worker thread of the process holds a connection of its own to each database and,
 * a few times a second, runs a PASSIVE checkpoint when anything was committed since its last
 * complete one (its `pragma data_version` changed). A PASSIVE checkpoint takes no lock a reader
 * or a writer waits on; the next write after a complete one starts the WAL again from its
 * beginning, so the WAL stays about as large as what is written between two ticks.
 *
 * The database's own connection keeps an automatic checkpoint at a much larger size as a net
 * (SAFETY_NET_PAGES): were the worker ever to fall behind or stop, the WAL still stops growing.
 * If the worker cannot open the database, nothing changes: the connection keeps its usual
 * `wal_autocheckpoint`. This is what SQLite's documentation suggests for applications that want
 * no checkpoint inside their commits ("Application-initiated checkpoints", wal.html).
 */

/** The interval of the worker's ticks. */
export const CHECKPOINT_INTERVAL_MS = 250;
/** The connection's own automatic checkpoint while the worker checkpoints (about 200 MB of WAL at 4 KB a page). */
export const SAFETY_NET_PAGES = 50_000;

// The worker's code: CommonJS evaluated by worker_threads (no file of its own to find at run
// time, whether sheetd runs from its sources or from the bundle bin/sheetd.js makes).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const open = new Map();
let timer;
function tick() {
  for (const s of open.values()) {
    try {
      const v = s.version.get();
      if (v === s.seen) continue;
      const [r] = s.db.pragma('wal_checkpoint(PASSIVE)');
      // a checkpoint that could not copy every frame (a reader of an older snapshot) is tried again
      if (r && r.busy === 0 && r.checkpointed >= r.log) s.seen = v;
      s.done++;
    } catch {
      // busy or gone: the next tick tries again
    }
  }
}
parentPort.on('message', (m) => {
  if (m.type === 'open') {
    try {
      const db = new Database(m.file, { fileMustExist: true });
      // the server's connection's journal settings (store/db.ts sqliteJournal) where they bear on checkpoints
      db.pragma('synchronous = NORMAL');
      db.pragma('journal_size_limit = 67108864');
      open.set(m.id, { db, version: db.prepare('pragma data_version').pluck(), seen: undefined, done: 0 });
      parentPort.postMessage({ type: 'opened', req: m.req });
    } catch (e) {
      parentPort.postMessage({ type: 'failed', req: m.req, message: String(e && e.message || e) });
    }
  } else if (m.type === 'close') {
    const s = open.get(m.id);
    open.delete(m.id);
    if (s) {
      try { s.db.close(); } catch {}
    }
    parentPort.postMessage({ type: 'closed', req: m.req });
  } else if (m.type === 'count') {
    const s = open.get(m.id);
    parentPort.postMessage({ type: 'count', req: m.req, done: s ? s.done : 0 });
  }
  if (open.size > 0 && timer === undefined) timer = setInterval(tick, workerData.intervalMs);
  if (open.size === 0 && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
});
`;

interface Reply { type: string; req: number; message?: string; done?: number }

let worker: Worker | undefined;
let nextId = 0;
let nextReq = 0;
const waiting = new Map<number, (r: Reply) => void>();
/** What each open registration does if the worker stops: its connection checkpoints itself again. */
const fallbacks = new Map<number, () => void>();

function theWorker(): Worker {
  if (worker !== undefined) return worker;
  const w = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { sqlite: createRequire(import.meta.url).resolve('better-sqlite3'), intervalMs: CHECKPOINT_INTERVAL_MS },
  });
  w.on('message', (r: Reply) => {
    const k = waiting.get(r.req);
    waiting.delete(r.req);
    if (waiting.size === 0) w.unref();
    k?.(r);
  });
  const stopped = () => {
    if (worker !== w) return;
    worker = undefined;
    for (const back of fallbacks.values()) back();
    fallbacks.clear();
    for (const [req, k] of waiting) k({ type: 'failed', req, message: 'the checkpoint worker stopped' });
    waiting.clear();
  };
  w.on('error', stopped);
  w.on('exit', stopped);
  // what keeps the process running only while it is asked something (after the listeners:
  // adding one refs the port again)
  w.unref();
  worker = w;
  return w;
}

function ask(m: { type: string; id: number; file?: string }): Promise<Reply> {
  const w = theWorker();
  const req = ++nextReq;
  return new Promise((resolve) => {
    if (waiting.size === 0) w.ref();
    waiting.set(req, resolve);
    w.postMessage({ ...m, req });
  });
}

export interface BackgroundCheckpoints {
  /** How many checkpoints the worker has run on this database (for tests and diagnostics). */
  count(): Promise<number>;
  /** Closes the worker's connection; the database's own checkpoints resume. */
  close(): Promise<void>;
}

/**
 * Checkpoints `file` (an SQLite database in WAL mode) from the worker thread. `ownCheckpoints(pages)`
 * sets the database connection's `wal_autocheckpoint`: to SAFETY_NET_PAGES once the worker holds
 * the database, back to `usualPages` if the worker stops. Undefined when the worker could not
 * open it (the connection keeps its usual checkpoints).
 */
export async function checkpointInBackground(file: string, usualPages: number, ownCheckpoints: (pages: number) => void): Promise<BackgroundCheckpoints | undefined> {
  const id = ++nextId;
  let reply: Reply;
  try {
    reply = await ask({ type: 'open', id, file });
  } catch {
    return undefined;
  }
  if (reply.type !== 'opened') return undefined;
  ownCheckpoints(SAFETY_NET_PAGES);
  fallbacks.set(id, () => ownCheckpoints(usualPages));
  return {
    async count() {
      const r = worker === undefined ? undefined : await ask({ type: 'count', id });
      return r?.done ?? 0;
    },
    async close() {
      if (!fallbacks.delete(id)) return;
      ownCheckpoints(usualPages);
      if (worker !== undefined) await ask({ type: 'close', id });
    },
  };
}
