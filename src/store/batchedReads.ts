import type { Queryable } from './db.ts';

/**
 * Reads of one kind that many requests make at once (every API request's token, Get Current
 * User's extras), on PostgreSQL, go to the database together: while one query of a kind is on
 * its way, the keys asked for meanwhile wait and then go in one query (`= any($1)`), instead of
 * a round trip each. Nothing is kept: each caller's answer comes from a query that began after
 * it asked, so it sees every commit made before (a revoked token, a deactivated user, whatever
 * process made them). Inside a transaction (its own connection) a read is simply run.
 */
export async function batchedRead<K extends string | number, R>(
  db: Queryable,
  kind: string,
  key: K,
  readMany: (keys: K[]) => Promise<Map<K, R>>,
): Promise<R | undefined> {
  if (db.isTransaction) return (await readMany([key])).get(key);
  let kinds = batchers.get(db);
  if (kinds === undefined) batchers.set(db, (kinds = new Map()));
  let b = kinds.get(kind) as Batcher<K, R> | undefined;
  if (b === undefined) kinds.set(kind, (b = new Batcher<K, R>(readMany)) as unknown as Batcher<never, unknown>);
  return b.read(key);
}

const batchers = new WeakMap<object, Map<string, Batcher<never, unknown>>>();

/** At most this many keys in one query; more wait for the next. */
const MAX_KEYS = 200;

interface Waiter<R> {
  resolve(value: R | undefined): void;
  reject(err: unknown): void;
}

class Batcher<K, R> {
  private waiting = new Map<K, Array<Waiter<R>>>();
  private inFlight = false;

  constructor(private readMany: (keys: K[]) => Promise<Map<K, R>>) {}

  read(key: K): Promise<R | undefined> {
    return new Promise<R | undefined>((resolve, reject) => {
      const list = this.waiting.get(key);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      // the first key of a quiet moment goes once the caller's synchronous work is done (keys
      // asked in the same turn go with it); later ones wait for the query on its way
      if (!this.inFlight) {
        this.inFlight = true;
        queueMicrotask(() => this.send());
      }
    });
  }

  private send(): void {
    if (this.waiting.size === 0) {
      this.inFlight = false;
      return;
    }
    const batch = new Map<K, Array<Waiter<R>>>();
    for (const [k, w] of this.waiting) {
      if (batch.size >= MAX_KEYS) break;
      batch.set(k, w);
    }
    for (const k of batch.keys()) this.waiting.delete(k);
    let p: Promise<Map<K, R>>;
    try {
      p = this.readMany([...batch.keys()]);
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      (found) => {
        for (const [k, ws] of batch) for (const w of ws) w.resolve(found.get(k));
      },
      (err: unknown) => {
        for (const ws of batch.values()) for (const w of ws) w.reject(err);
      },
    ).finally(() => this.send());
  }
}
