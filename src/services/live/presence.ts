import { randomString } from '../../ids.ts';

/**
 * Who has a sheet open, and which cell each has focused, across the processes of a cluster.
 *
 * Each process knows its own entries: one per open change stream (it joins when the stream opens
 * and leaves when it ends) and one per API client that reports its focus without a stream (kept
 * for `ttlMs` after its last report). It announces the entries of a sheet on the bus whenever
 * they change and again every third of `ttlMs`; the others keep each process's last announcement
 * of a sheet and forget it when it is `ttlMs` old, so a killed process's people are gone within
 * `ttlMs` too. A process that opens its first stream of a sheet asks the others to announce
 * theirs at once. Presence is never written to the database: it is not the truth of anything.
 */
export interface Viewer {
  /** The stream's presence id (the `hello` event names it), or the API client's. */
  id: string;
  userId: number;
  name: string;
  email: string;
  rowId: number | null;
  columnId: number | null;
}

interface Entry extends Viewer {
  /** When its focus was last reported (API clients without a stream are dropped ttlMs after it). */
  at: number;
  /** Held by an open stream of this process. */
  held: boolean;
}

/** What Presence needs of the live bus. */
export interface PresenceBus {
  publish(message: string): void;
  on(handler: (message: string) => void): void;
}

interface Message {
  /** the announcing process */
  o: string;
  s: number;
  /** its entries of the sheet (an announcement) */
  e?: Viewer[];
  /** "announce yours": a process opened its first stream of the sheet */
  ask?: true;
  /** a focus reported to another process for an entry this one may hold */
  f?: { id: string; userId: number; rowId: number | null; columnId: number | null };
}

export interface ViewerList {
  viewers: Viewer[];
  /** Everyone who has the sheet open (viewers lists at most MAX_LISTED). */
  count: number;
}

type Listener = (list: ViewerList) => void;

export class Presence {
  readonly origin = randomString(12);
  private readonly local = new Map<number, Map<string, Entry>>();
  private readonly remote = new Map<string, Map<number, { viewers: Viewer[]; at: number }>>();
  private readonly listeners = new Map<number, Set<Listener>>();
  private readonly shown = new Map<number, string>();
  private readonly pending = new Set<number>();
  private readonly lastSent = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly bus: PresenceBus, private readonly ttlMs: number, private readonly now: () => number = Date.now) {
    bus.on((m) => this.received(m));
    this.timer = setInterval(() => this.refresh(), Math.max(50, Math.floor(ttlMs / 3)));
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** The viewers of a sheet in every process, each once (the latest report of an id wins), in a stable order. */
  viewers(sheetId: number): Viewer[] {
    const byId = new Map<string, { v: Viewer; at: number }>();
    const add = (v: Viewer, at: number) => {
      const had = byId.get(v.id);
      if (had === undefined || had.at <= at) byId.set(v.id, { v, at });
    };
    for (const e of this.local.get(sheetId)?.values() ?? []) add(viewer(e), e.at);
    for (const sheets of this.remote.values()) {
      const r = sheets.get(sheetId);
      if (r) for (const v of r.viewers) add(v, r.at);
    }
    return [...byId.values()].map((x) => x.v).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  listen(sheetId: number, l: Listener): () => void {
    let set = this.listeners.get(sheetId);
    if (!set) this.listeners.set(sheetId, (set = new Set()));
    set.add(l);
    return () => {
      set.delete(l);
      if (set.size === 0) {
        this.listeners.delete(sheetId);
        this.shown.delete(sheetId);
        this.lastSent.delete(sheetId);
      }
    };
  }

  /** An open stream: its person has the sheet open (no cell focused yet). */
  join(sheetId: number, v: Omit<Viewer, 'rowId' | 'columnId'>): void {
    let m = this.local.get(sheetId);
    const first = m === undefined;
    if (!m) this.local.set(sheetId, (m = new Map()));
    m.set(v.id, { ...v, rowId: null, columnId: null, at: this.now(), held: true });
    this.announce(sheetId, first ? true : undefined);
  }

  leave(sheetId: number, id: string): void {
    const m = this.local.get(sheetId);
    if (!m?.delete(id)) return;
    if (m.size === 0) this.local.delete(sheetId);
    this.announce(sheetId);
  }

  /**
   * A reported focus. An id held here (or none yet) is this process's to announce; one it does
   * not hold may be another process's stream, which hears it on the bus.
   */
  focus(sheetId: number, v: Omit<Viewer, 'id'> & { id: string }): void {
    const m = this.local.get(sheetId);
    const e = m?.get(v.id);
    if (e) {
      if (e.userId !== v.userId) return;
      Object.assign(e, { rowId: v.rowId, columnId: v.columnId, at: this.now() });
      this.announce(sheetId);
      return;
    }
    this.bus.publish(JSON.stringify({ o: this.origin, s: sheetId, f: { id: v.id, userId: v.userId, rowId: v.rowId, columnId: v.columnId } } satisfies Message));
  }

  /** A focus reported by a client without a stream: its own entry, kept here for ttlMs after its last report. */
  report(sheetId: number, v: Viewer): void {
    let m = this.local.get(sheetId);
    if (!m) this.local.set(sheetId, (m = new Map()));
    const e = m.get(v.id);
    if (e && e.held) return this.focus(sheetId, v);
    m.set(v.id, { ...v, at: this.now(), held: false });
    this.announce(sheetId);
  }

  /** Whether this process holds the id of an open stream on the sheet. */
  holds(sheetId: number, id: string): boolean {
    return this.local.get(sheetId)?.get(id)?.held === true;
  }

  private announce(sheetId: number, ask?: true): void {
    const viewers = [...(this.local.get(sheetId)?.values() ?? [])].map(viewer);
    this.bus.publish(JSON.stringify({ o: this.origin, s: sheetId, e: viewers, ...(ask ? { ask } : {}) } satisfies Message));
    this.changed(sheetId);
  }

  private received(raw: string): void {
    let m: Message;
    try {
      m = JSON.parse(raw) as Message;
    } catch {
      return;
    }
    if (typeof m.o !== 'string' || typeof m.s !== 'number') return;
    if (m.f !== undefined) {
      const e = this.local.get(m.s)?.get(m.f.id);
      if (e && e.userId === m.f.userId) {
        Object.assign(e, { rowId: m.f.rowId, columnId: m.f.columnId, at: this.now() });
        this.announce(m.s);
      }
      return;
    }
    if (m.o === this.origin) return;
    if (Array.isArray(m.e)) {
      let sheets = this.remote.get(m.o);
      if (!sheets) this.remote.set(m.o, (sheets = new Map()));
      if (m.e.length === 0) sheets.delete(m.s);
      else sheets.set(m.s, { viewers: m.e, at: this.now() });
      if (sheets.size === 0) this.remote.delete(m.o);
      this.changed(m.s);
    }
    if (m.ask && this.local.has(m.s)) this.announce(m.s);
  }

  /** Announces this process's entries again, and forgets what is ttlMs old. */
  private refresh(): void {
    const now = this.now();
    for (const [sheetId, m] of this.local) {
      for (const [id, e] of m) if (!e.held && now - e.at > this.ttlMs) m.delete(id);
      if (m.size === 0) this.local.delete(sheetId);
      this.announce(sheetId);
    }
    for (const [origin, sheets] of this.remote) {
      for (const [sheetId, r] of sheets) {
        if (now - r.at > this.ttlMs) {
          sheets.delete(sheetId);
          this.changed(sheetId);
        }
      }
      if (sheets.size === 0) this.remote.delete(origin);
    }
  }

  /**
   * Tells the sheet's listeners when what they were shown changed: at once, then at most once
   * a second (everyone learns of everyone: 2,000 people opening a sheet together would
   * otherwise be 2,000 lists to each of them).
   */
  private changed(sheetId: number): void {
    if (!this.listeners.has(sheetId) || this.pending.has(sheetId)) return;
    this.pending.add(sheetId);
    const wait = Math.max(0, (this.lastSent.get(sheetId) ?? -Infinity) + NOTIFY_EVERY_MS - Date.now());
    const send = () => {
      this.pending.delete(sheetId);
      const set = this.listeners.get(sheetId);
      if (!set) return;
      const all = this.viewers(sheetId);
      const list = { viewers: all.slice(0, MAX_LISTED), count: all.length };
      const text = JSON.stringify(list);
      if (this.shown.get(sheetId) === text) return;
      this.shown.set(sheetId, text);
      this.lastSent.set(sheetId, Date.now());
      for (const l of set) l(list);
    };
    if (wait === 0) setImmediate(send);
    else setTimeout(send, wait).unref();
  }
}

/** A presence event lists this many people at most (and counts them all). */
export const MAX_LISTED = 50;
const NOTIFY_EVERY_MS = 1000;

function viewer(e: Entry): Viewer {
  return { id: e.id, userId: e.userId, name: e.name, email: e.email, rowId: e.rowId, columnId: e.columnId };
}
