import type pino from 'pino';
import type { Store } from '../../store/db.ts';
import { countSheetEventsAfter, eventsAfter, maxEventPos, sequenceEvents, sheetEventsAfter } from '../../store/events.ts';
import { findSheet } from '../../store/sheets.ts';
import { randomString } from '../../ids.ts';
import { apiErrorOf } from '../platform/errors.ts';
import { apiError } from '../../errors.ts';
import { atLeast, type AccessLevel } from '../access/access.ts';
import { sheetAccessLevel, sheetFor } from '../access/permissions.ts';
import { nameOrEmail, type Actor } from '../platform/context.ts';
import { Batch, changesOf, touchesAccess, touchesOrgAccess, type Change, type EventRow } from './changes.ts';
import { MAX_LISTED, Presence, type Viewer, type ViewerList } from './presence.ts';

/**
 * The change streams of this process (GET /2.0/sheetd/sheets/{id}/changes) and the one reader of
 * the change log that feeds them.
 *
 * The change log is the truth. The hub reads it after every position it has read (one query for
 * all streams of the process, whatever their sheets) when it is woken: after a request of this
 * process that recorded events has been answered (its transaction committed), when another
 * process says so on the bus (Redis pub/sub), and every `heartbeatMs` in any case (a lost
 * message, the command line writing to SQLite). A stream holds no database connection between
 * reads.
 *
 * Each stream knows `seen`: every event of its sheet at or below that position has been sent.
 * A batch the hub read from `prev` to `next` is sent as it is to the streams with seen >= prev
 * (the same objects for all of them, so the sheet is loaded and each access level presented
 * once); a stream behind (a resumed one catching up) reads its sheet's events after `seen` from
 * the log itself. Positions are given in commit order (store/events.ts), so once the hub has
 * read position P every event at or below P is visible: a stream that read its sheet's events
 * after `seen` completely, starting when the hub was at P, has seen P.
 */
export interface LiveSettings {
  /** Comment line on every stream, and the slow poll of the log. */
  heartbeatMs: number;
  /** A stream asks again whether its caller may still read the sheet at least this often. */
  accessCheckMs: number;
  /** A resumed stream replays at most this many events of its sheet; further back it answers `reset`. */
  replayMax: number;
  /** Someone whose stream ended (or an API client that stopped reporting) is gone within this. */
  presenceTtlMs: number;
}

/** What the hub needs of the live bus (pubsub/liveBus.ts). */
export interface HubBus {
  publish(topic: 'wake' | 'presence', message: string): void;
  on(topic: 'wake' | 'presence', handler: (message: string) => void): void;
  readonly shared: boolean;
}

/** Where a stream's events go (the route writes them as Server-Sent Events). */
export interface StreamSink {
  /** Changes of a batch, to present as the caller sees the sheet at `level`. */
  changes(batch: Batch, changes: readonly Change[], level: AccessLevel): Promise<void>;
  /** A stream event of its own: hello, reset, presence, access-lost, sheet-deleted. */
  event(kind: string, id: number | null, data: unknown): void;
  /** The keep-alive comment line. */
  comment(): void;
  /** The stream is over (after access-lost or sheet-deleted, or the server closing). */
  end(): void;
}

export interface OpenRequest {
  actor: Actor;
  sheetId: number;
  /** Last-Event-ID (or ?after=): resume after this position. */
  after: number | undefined;
  /** The caller's credentials again (the token may be revoked, the session ended): throws when no longer valid. */
  reauth: () => Promise<Actor>;
}

const PAGE = 1000;

export class LiveStream {
  readonly id = randomString(16);
  seen: number;
  level: AccessLevel;
  actor: Actor;
  needsCheck = false;
  checkedAt = Date.now();
  closed = false;
  sink: StreamSink | undefined;
  private chain: Promise<void> = Promise.resolve();
  unlisten: (() => void) | undefined;

  constructor(readonly hub: LiveHub, readonly req: OpenRequest, seen: number, level: AccessLevel, readonly reset: boolean, readonly logEnd: number) {
    this.seen = seen;
    this.level = level;
    this.actor = req.actor;
  }

  get sheetId(): number {
    return this.req.sheetId;
  }

  /** Work on this stream, one task after another. */
  enqueue(task: () => Promise<void> | void): void {
    this.chain = this.chain.then(async () => {
      if (!this.closed) await task();
    }).catch((err: unknown) => this.hub.failed(this, err));
  }

  /** Starts sending: hello (and reset), who else is here, then what it missed. */
  start(sink: StreamSink): void {
    this.hub.started(this, sink);
  }

  /** The client went away (or the server ends the stream). */
  close(): void {
    this.hub.closed(this);
  }
}

export class LiveHub {
  readonly presence: Presence;
  private readonly streams = new Set<LiveStream>();
  private readonly bySheet = new Map<number, Set<LiveStream>>();
  private readonly origin = randomString(12);
  /** Every positioned event at or below this has been read and handed out; -1 while no stream is open. */
  private feedPos = -1;
  private reading = false;
  private again = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly bus: HubBus,
    readonly settings: LiveSettings,
    private readonly logger?: pino.Logger | false,
  ) {
    this.presence = new Presence({ publish: (m) => bus.publish('presence', m), on: (h) => bus.on('presence', h) }, settings.presenceTtlMs);
    bus.on('wake', (m) => {
      if (m !== this.origin) this.wake();
    });
    this.timer = setInterval(() => this.beat(), settings.heartbeatMs);
    this.timer.unref();
  }

  get size(): number {
    return this.streams.size;
  }

  /** A request of this process that recorded change events has committed: read the log, and tell the other processes. */
  committed(): void {
    this.wake();
    if (this.bus.shared) this.bus.publish('wake', this.origin);
  }

  /**
   * Checks that the caller may read the sheet (1006 / 1004 as any read) and where the stream
   * starts; nothing is sent until start().
   */
  async open(req: OpenRequest): Promise<LiveStream> {
    const db = this.store.db;
    const { level } = await sheetFor(db, req.actor, req.sheetId, 'VIEWER');
    await sequenceEvents(this.store);
    const last = await maxEventPos(db);
    let start = last;
    let reset = false;
    if (req.after !== undefined) {
      if (req.after > last || (await countSheetEventsAfter(db, req.sheetId, req.after, this.settings.replayMax + 1)) > this.settings.replayMax) reset = true;
      else start = req.after;
    }
    return new LiveStream(this, req, start, level, reset, last);
  }

  started(s: LiveStream, sink: StreamSink): void {
    s.sink = sink;
    this.streams.add(s);
    let set = this.bySheet.get(s.sheetId);
    if (!set) this.bySheet.set(s.sheetId, (set = new Set()));
    set.add(s);
    if (this.feedPos < 0) this.feedPos = s.logEnd;
    if (s.reset) sink.event('reset', s.seen, { sheetId: s.sheetId, position: s.seen });
    sink.event('hello', s.seen, { sheetId: s.sheetId, position: s.seen, presenceId: s.id, heartbeatMs: this.settings.heartbeatMs });
    const u = s.actor.user;
    this.presence.join(s.sheetId, { id: s.id, userId: u.id, name: nameOrEmail(u), email: u.email });
    const sendPresence = (list: ViewerList) => s.enqueue(() => sink.event('presence', null, { sheetId: s.sheetId, ...list }));
    s.unlisten = this.presence.listen(s.sheetId, sendPresence);
    const all = this.presence.viewers(s.sheetId);
    sendPresence({ viewers: all.slice(0, MAX_LISTED), count: all.length });
    s.enqueue(() => this.catchUp(s));
  }

  closed(s: LiveStream): void {
    if (s.closed) return;
    s.closed = true;
    this.streams.delete(s);
    const set = this.bySheet.get(s.sheetId);
    set?.delete(s);
    if (set?.size === 0) this.bySheet.delete(s.sheetId);
    s.unlisten?.();
    this.presence.leave(s.sheetId, s.id);
    if (this.streams.size === 0) this.feedPos = -1;
  }

  failed(s: LiveStream, err: unknown): void {
    if (this.logger) this.logger.error({ err, sheetId: s.sheetId }, 'change stream: ending a stream after an error (the client resumes from its last event)');
    this.end(s);
  }

  /** Ends a stream from the server's side. */
  private end(s: LiveStream): void {
    const sink = s.sink;
    this.closed(s);
    sink?.end();
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    clearInterval(this.timer);
    for (const s of [...this.streams]) this.end(s);
    this.presence.close();
  }

  /** Reads the log after feedPos (again, if woken meanwhile). */
  wake(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    void (async () => {
      try {
        do {
          this.again = false;
          await this.readLog();
        } while (this.again);
      } catch (err) {
        if (this.logger) this.logger.warn({ err }, 'change streams: reading the change log failed; trying again at the next wake-up');
      } finally {
        this.reading = false;
      }
    })();
  }

  private async readLog(): Promise<void> {
    if (this.streams.size === 0) return;
    await sequenceEvents(this.store);
    while (this.streams.size > 0) {
      const rows = await eventsAfter(this.store.db, this.feedPos, PAGE);
      if (rows.length === 0) return;
      const prev = this.feedPos;
      this.feedPos = rows[rows.length - 1]!.pos!;
      this.dispatch(rows, prev, this.feedPos);
      if (rows.length < PAGE) return;
    }
  }

  private dispatch(rows: EventRow[], prev: number, next: number): void {
    const bySheet = new Map<number, EventRow[]>();
    const orgs = new Set<number>();
    for (const r of rows) {
      if (r.sheet_id !== null && this.bySheet.has(r.sheet_id)) {
        let list = bySheet.get(r.sheet_id);
        if (!list) bySheet.set(r.sheet_id, (list = []));
        list.push(r);
      } else if (touchesOrgAccess(r)) {
        orgs.add(r.org_id);
      }
    }
    for (const [sheetId, streams] of this.bySheet) {
      const events = bySheet.get(sheetId);
      const batch = events ? new Batch(this.store.db, sheetId, changesOf(events)) : undefined;
      const access = events?.some(touchesAccess) ?? false;
      for (const s of streams) {
        if (access || orgs.has(s.actor.org.id)) s.needsCheck = true;
        s.enqueue(async () => {
          if (s.seen < prev) return this.catchUp(s);
          if (s.needsCheck && !(await this.check(s))) return;
          if (batch) await this.deliver(s, batch);
          if (s.seen < next) s.seen = next;
        });
      }
    }
  }

  /** Sends what a stream has not seen of its sheet, read from the log. */
  private async catchUp(s: LiveStream): Promise<void> {
    const upTo = this.feedPos;
    if (s.needsCheck && !(await this.check(s))) return;
    while (!s.closed) {
      const rows = await sheetEventsAfter(this.store.db, s.sheetId, s.seen, PAGE);
      if (rows.length > 0) {
        await this.deliver(s, new Batch(this.store.db, s.sheetId, changesOf(rows)));
        if (s.closed) return;
        s.seen = Math.max(s.seen, rows[rows.length - 1]!.pos!);
      }
      if (rows.length < PAGE) break;
    }
    if (s.seen < upTo) s.seen = upTo;
  }

  private async deliver(s: LiveStream, given: Batch): Promise<void> {
    let batch = given;
    let changes = batch.changes.filter((c) => c.pos > s.seen);
    if (changes.length === 0) return;
    // a stream that caught up past where the hub's batch began (a resumed one reads its sheet to
    // the end of the log) has sent the start of the batch's first run: the rest goes, as a batch
    // of its own (its runs, recomputed rows and texts are its own)
    if (changes[0]!.events[0]!.pos! <= s.seen) {
      batch = new Batch(this.store.db, s.sheetId, changesOf(changes.flatMap((c) => c.events).filter((e) => e.pos! > s.seen)));
      changes = batch.changes;
    }
    if (changes.some((c) => c.kind === 'shares' || c.events.some(touchesAccess)) && !(await this.check(s))) return;
    const cut = changes.findIndex((c) => c.kind === 'sheet-deleted');
    const sent = cut < 0 ? changes : changes.slice(0, cut);
    if (sent.length > 0) {
      const now = await batch.now();
      if (now === null) {
        // deleted meanwhile: its sheet-deleted event is in the log after these
        if (cut < 0) return;
      } else {
        await s.sink!.changes(batch, sent, s.level);
      }
    }
    if (cut >= 0) {
      s.sink!.event('sheet-deleted', changes[cut]!.pos, { sheetId: s.sheetId });
      this.end(s);
      return;
    }
    s.seen = Math.max(s.seen, changes[changes.length - 1]!.pos);
  }

  /** Whether the caller still may read the sheet (its level brought up to date); if not, access-lost and the end. */
  private async check(s: LiveStream): Promise<boolean> {
    s.needsCheck = false;
    s.checkedAt = Date.now();
    const db = this.store.db;
    const sheet = await findSheet(db, s.sheetId);
    if (!sheet) {
      // its deletion is in the log: the stream says so in order
      return true;
    }
    let level: AccessLevel | null = null;
    try {
      s.actor = await s.req.reauth();
      level = await sheetAccessLevel(db, s.actor, sheet);
    } catch (e) {
      if (apiErrorOf(e) === undefined) throw e;
    }
    if (!atLeast(level, 'VIEWER')) {
      s.sink!.event('access-lost', null, { sheetId: s.sheetId });
      this.end(s);
      return false;
    }
    s.level = level!;
    return true;
  }

  /**
   * A page (or API client) reports which cell it has focused (POST .../presence): the entry of
   * its stream (presenceId from hello), wherever in the cluster that stream is served, or
   * without a stream an entry of its own, kept for presenceTtlMs after its last report.
   */
  async reportFocus(actor: Actor, sheetId: number, body: unknown): Promise<{ presenceId: string }> {
    await sheetFor(this.store.db, actor, sheetId, 'VIEWER');
    const b = (body ?? {}) as Record<string, unknown>;
    if (typeof b !== 'object' || Array.isArray(b)) throw apiError(1008, 'the body must be an object');
    const id = b.presenceId;
    if (id !== undefined && (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id))) throw apiError(1018, JSON.stringify(id), 'presenceId');
    const cell = (k: string): number | null => {
      const v = b[k];
      if (v === undefined || v === null) return null;
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) throw apiError(1018, JSON.stringify(v), k);
      return v;
    };
    const rowId = cell('rowId');
    const columnId = cell('columnId');
    const u = actor.user;
    const presenceId = id ?? `user-${u.id}`;
    const v = { id: presenceId, userId: u.id, name: nameOrEmail(u), email: u.email, rowId, columnId };
    if (id !== undefined && !id.startsWith('user-')) this.presence.focus(sheetId, v);
    else this.presence.report(sheetId, { ...v, id: `user-${u.id}` });
    return { presenceId: id !== undefined && !id.startsWith('user-') ? id : `user-${u.id}` };
  }

  /** Who has the sheet open now (GET .../presence). */
  async viewers(actor: Actor, sheetId: number): Promise<Viewer[]> {
    await sheetFor(this.store.db, actor, sheetId, 'VIEWER');
    return this.presence.viewers(sheetId);
  }

  /** Every heartbeatMs: the comment line, due access checks, and the slow poll of the log. */
  private beat(): void {
    const now = Date.now();
    for (const s of this.streams) {
      s.sink!.comment();
      if (now - s.checkedAt >= this.settings.accessCheckMs) {
        s.checkedAt = now;
        s.enqueue(async () => void (await this.check(s)));
      }
    }
    this.wake();
  }
}
