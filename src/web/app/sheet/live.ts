import { api, ApiError, showMessage } from '../api.ts';
import type { SheetPageContext } from './page.ts';
import type { PanelSection } from '../panels/rowPanel.ts';
import { sheetQuery } from './actions.ts';
import { PresenceView, type Viewer } from './presence.ts';
import type { Column, Filter, Row, Sheet } from './types.ts';

/** Kinds of events that move rows or columns: they wait while a cell editor is open (it edits a row by its place). */
const MOVES = new Set(['rows-added', 'rows-deleted', 'rows-moved', 'columns-added', 'columns-updated', 'columns-deleted', 'reset', 'sheet-updated', 'shares']);
const ITEM_KINDS = ['attachments', 'discussions', 'comments', 'proofs'];
/** What a sheet-updated may have changed in the rows shown (their order, values or formats): the sheet is read again. */
const RELOAD_ON = new Set(['rowOrder', 'conditionalFormats', 'crossSheetReferences', 'summary', 'settings']);
const ACCESS_WORDS: Record<string, string> = {
  OWNER: 'you own it now',
  ADMIN: 'you may now edit and share it, and change its columns',
  EDITOR_SHARE: 'you may now edit and share it',
  EDITOR: 'you may now edit it',
  COMMENTER: 'you may now only view it and comment',
  VIEWER: 'you may now only view it',
};
/** After the stream failed for good (not a dropped connection EventSource retries by itself), the next try. */
const RETRY_MS = [1000, 3000, 10000, 30000];

interface Data {
  sheetId: number;
  version?: number;
  rowIds?: number[];
  rows?: Row[];
  /** Rows whose formula results the change altered (server: services/live/changes.ts). */
  recomputed?: Row[];
  /** More rows than an event carries were recomputed: the sheet is read again. */
  recomputedTruncated?: boolean;
  columnIds?: number[];
  columns?: Column[];
  sheet?: Partial<Sheet>;
  actions?: string[];
  /** sheet-updated: what changed (docs/changes-stream.md); `filterIds`, the shared filters changed. */
  changed?: string[];
  filterIds?: number[];
  items?: Array<{ action: string; id: number; parentType?: string; parentId?: number; discussionId?: number; rowId?: number }>;
  viewers?: Viewer[];
  count?: number;
  presenceId?: string;
  position?: number;
}

/**
 * The sheet page's side of live collaboration (docs/changes-stream.md): the change stream
 * (EventSource on the page's session, CSRF token in the query) applied to the model as events
 * come, one after another in commit order:
 *
 *  - rows added, changed and moved (with the rows whose formula results changed) go through
 *    the same RowSync as the page's own answers, so an event of the page's own write changes
 *    nothing and never shows an older value last; deleted rows go; columns are merged (a type
 *    or formula change reads the sheet again); a rename shows; a sort reads the sheet again;
 *  - while the sheet is read again (a reload, `reset`), events wait and follow it; while a cell
 *    editor is open, events that move rows or columns wait until it closes;
 *  - the open row panel reads again the section an event concerns (when the person is not at
 *    work in it);
 *  - `access-lost` and `sheet-deleted` end the stream with a message in plain words, and the
 *    grid takes no more edits.
 *
 * EventSource reconnects by itself after a dropped connection, resuming after the last event
 * (Last-Event-ID). The stream opens after the page read the sheet: at the first `hello` the
 * sheet's version says whether anything changed in between (then it is read again).
 */
export class LiveSheet {
  readonly presence: PresenceView;
  /** The sheet's version of the last event applied (tests wait for it). */
  version = -1;
  private es: EventSource | null = null;
  private lastId = '';
  private first = true;
  private ended = false;
  private retries = 0;
  private readonly queue: Array<{ kind: string; run: () => Promise<void> | void }> = [];
  private running = false;
  private holds = 0;
  private waitTimer: ReturnType<typeof setTimeout> | null = null;
  private panelTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly stalePanel = new Set<PanelSection>();

  constructor(
    private readonly ctx: SheetPageContext,
    private readonly banner: HTMLElement,
  ) {
    this.presence = new PresenceView(ctx);
  }

  start(): void {
    const { actions } = this.ctx;
    actions.live = true;
    actions.hold = () => this.hold();
    this.connect();
    // leaving the page ends the stream (and the person's presence) at once; back from the browser's cache, it resumes
    window.addEventListener('pagehide', () => {
      this.es?.close();
      this.es = null;
    });
    window.addEventListener('pageshow', (e) => {
      if (e.persisted && !this.es && !this.ended) this.connect();
    });
  }

  /** Events wait until the release (a reload of the sheet under way). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.pump();
    };
  }

  private connect(): void {
    if (this.ended) return;
    const q = new URLSearchParams();
    q.set('csrf', document.querySelector<HTMLMetaElement>('meta[name="sheetd-csrf"]')?.content ?? '');
    // rows as the page reads them (Get Row's options of the page's Get Sheet)
    for (const [k, v] of Object.entries(sheetQuery(this.ctx.model.columns))) q.set(k, k === 'include' ? String(v).split(',').filter((x) => x !== 'filters').join(',') : String(v));
    if (this.lastId) q.set('after', this.lastId);
    const es = new EventSource(`/2.0/sheetd/sheets/${this.ctx.sheetId}/changes?${q}`);
    this.es = es;
    document.body.dataset.live = 'connecting';
    /** An event's data, its id kept as the position to resume after; undefined when unreadable. */
    const read = (ev: Event): Data | undefined => {
      const e = ev as MessageEvent<string>;
      if (e.lastEventId) this.lastId = e.lastEventId;
      try {
        return JSON.parse(e.data) as Data;
      } catch {
        return undefined;
      }
    };
    const on = (kind: string, fn: (d: Data) => Promise<void> | void) =>
      es.addEventListener(kind, (ev) => {
        const d = read(ev);
        if (!d) return;
        this.enqueue(kind, async () => {
          await fn(d);
          if (d.version !== undefined && d.version > this.version) this.version = d.version;
        });
      });
    es.addEventListener('hello', (ev) => {
      const d = read(ev);
      if (!d) return;
      this.retries = 0;
      if (d.presenceId) this.presence.connected(d.presenceId);
      if (this.first) {
        this.first = false;
        this.enqueue('hello', () => this.catchUp());
      } else document.body.dataset.live = 'open';
    });
    es.addEventListener('presence', (ev) => {
      try {
        const d = JSON.parse((ev as MessageEvent<string>).data) as Data;
        this.presence.show(d.viewers ?? [], d.count ?? 0);
      } catch {
        // a presence list that cannot be read: the next one comes within a second of a change
      }
    });
    for (const kind of ['rows-added', 'rows-updated', 'rows-moved']) {
      on(kind, async (d) => {
        const { model, actions } = this.ctx;
        // rows added under an applied sheet filter: whether it shows them, only the server knows
        if (kind === 'rows-added' && model.sheetFilter && (d.rows ?? []).some((r) => !model.rows.has(r.id))) {
          await actions.reload();
          return;
        }
        actions.sync.streamed([...(d.rows ?? []), ...(d.recomputed ?? [])], d.version ?? -1);
        if (d.recomputedTruncated) await actions.reload();
        if (kind !== 'rows-added') this.panelConcerns(d.rowIds ?? [], ['history']);
      });
    }
    on('rows-deleted', async (d) => {
      this.ctx.actions.sync.deleted(d.rowIds ?? []);
      if (d.recomputed?.length) this.ctx.actions.sync.streamed(d.recomputed, d.version ?? -1);
      if (d.recomputedTruncated) await this.ctx.actions.reload();
      const open = this.ctx.rowPanel?.();
      if (open && !this.ctx.model.rows.has(open.rowId)) {
        open.panel.close();
        showMessage('The row whose panel was open was deleted by someone else.', 'note');
      }
    });
    on('columns-added', (d) => this.ctx.actions.applyColumns(d.columns ?? [], []));
    on('columns-updated', (d) => this.ctx.actions.applyColumns(d.columns ?? [], []));
    on('columns-deleted', (d) => this.ctx.actions.applyColumns([], d.columnIds ?? []));
    on('sheet-updated', (d) => this.sheetUpdated(d));
    on('shares', () => this.accessChanged());
    for (const kind of ITEM_KINDS) on(kind, (d) => this.itemsChanged(kind, d));
    on('reset', () => this.ctx.actions.reload());
    on('access-lost', () => this.end('You no longer have access to this sheet: it was unshared, or your access was removed. What you see here may be out of date, and changes are not saved.'));
    on('sheet-deleted', () => this.end('This sheet was deleted. What you see here is how it was; changes are not saved.'));
    es.addEventListener('error', () => {
      if (this.ended) return;
      if (es.readyState === EventSource.CLOSED) void this.failed();
      else document.body.dataset.live = 'connecting';
    });
  }

  /** The stream could not be opened again (EventSource gave up): ask why through the API; try again later unless the sheet is gone. */
  private async failed(): Promise<void> {
    this.es?.close();
    this.es = null;
    document.body.dataset.live = 'closed';
    try {
      await api.get(`/sheets/${this.ctx.sheetId}/version`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        this.end('This sheet was deleted, or it is no longer shared with you. What you see here may be out of date, and changes are not saved.');
        return;
      }
      if (e instanceof ApiError && e.status === 401) {
        this.end('You are signed out. Sign in again and reload the page to see changes and save yours.');
        return;
      }
    }
    const wait = RETRY_MS[Math.min(this.retries++, RETRY_MS.length - 1)]!;
    setTimeout(() => this.connect(), wait);
  }

  /** The first hello: anything committed between the page's Get Sheet and the stream's start is read again (the version says). */
  private async catchUp(): Promise<void> {
    try {
      const v = await api.get<{ version: number }>(`/sheets/${this.ctx.sheetId}/version`);
      if (v.version > (this.ctx.model.sheet.version ?? -1)) await this.ctx.actions.reload();
    } catch {
      // the stream's events go on; the next reset or reload catches up
    }
    document.body.dataset.live = 'open';
  }

  private enqueue(kind: string, run: () => Promise<void> | void): void {
    this.queue.push({ kind, run });
    this.pump();
  }

  /** Applies the queued events in order; waits while the sheet is read again, and keeps row moves until an open cell editor closes. */
  private pump(): void {
    if (this.running) return;
    this.running = true;
    void (async () => {
      try {
        while (this.queue.length > 0 && this.holds === 0) {
          const next = this.queue[0]!;
          if (MOVES.has(next.kind) && this.ctx.grid.editing) {
            if (!this.waitTimer) {
              this.waitTimer = setTimeout(() => {
                this.waitTimer = null;
                this.pump();
              }, 200);
            }
            break;
          }
          this.queue.shift();
          try {
            await next.run();
          } catch (e) {
            // an event that could not be applied: the sheet as the server has it
            console.error(e);
            await this.ctx.actions.reload().catch(() => undefined);
          }
        }
      } finally {
        this.running = false;
      }
      if (this.queue.length > 0 && this.holds === 0 && !this.waitTimer) this.pump();
    })();
  }

  private async sheetUpdated(d: Data): Promise<void> {
    const { model, actions } = this.ctx;
    const s = d.sheet ?? {};
    if (s.accessLevel !== undefined && s.accessLevel !== model.sheet.accessLevel) {
      await this.accessChanged();
      return;
    }
    if (s.name !== undefined && s.name !== model.sheet.name) model.apply({ kind: 'meta', sheet: { name: s.name } });
    // rows' order, values or formats changed (a sort, conditional formats, settings...), or the
    // shared filter the person applied: read the sheet again; other shared filters: their list
    const changed = d.changed ?? ['settings'];
    const applied = model.sheetFilter?.filter.id;
    if (changed.some((k) => RELOAD_ON.has(k)) || (applied !== undefined && (d.filterIds ?? []).includes(applied))) await actions.reload();
    else if (changed.includes('filters')) await this.filtersChanged();
  }

  /** Shared filters changed, none the person applied: the list the toolbar offers is read again. */
  private async filtersChanged(): Promise<void> {
    const { model } = this.ctx;
    try {
      const list = await api.get<{ data: Filter[] }>(`/sheetd/sheets/${this.ctx.sheetId}/filters`, { includeAll: true });
      model.apply({ kind: 'meta', sheet: { filters: list.data } });
    } catch {
      // the list stays as it was until the next read of the sheet
    }
  }

  /** The sheet's shares changed: the person's access level may have. */
  private async accessChanged(): Promise<void> {
    const { model, actions } = this.ctx;
    let level: string;
    try {
      level = (await api.get<Sheet>(`/sheets/${this.ctx.sheetId}`, { pageSize: 1, page: 1, accessApiLevel: 1 })).accessLevel;
    } catch {
      // access-lost follows when it is gone
      return;
    }
    if (level === model.sheet.accessLevel) return;
    await actions.reload();
    this.banner.textContent = `Your access to this sheet changed: ${ACCESS_WORDS[level] ?? `it is now ${level}`}.`;
    this.banner.hidden = false;
  }

  /** Attachments, conversations, comments or proofs changed: the open row panel reads again what concerns its row. */
  private itemsChanged(kind: string, d: Data): void {
    const open = this.ctx.rowPanel?.();
    if (!open) return;
    const el = open.panel.element;
    const sections = new Set<PanelSection>();
    for (const it of d.items ?? []) {
      const onRow = (it.parentType === 'ROW' && it.parentId === open.rowId) || it.rowId === open.rowId;
      const inThread = (id: number | undefined) => id !== undefined && el.querySelector(`[data-discussion-id="${id}"]`) !== null;
      if (kind === 'attachments' && (onRow || (it.parentType === 'DISCUSSION' && inThread(it.parentId)))) sections.add('attachments');
      if (kind === 'discussions' && (onRow || inThread(it.id))) sections.add('conversations');
      if (kind === 'comments' && inThread(it.discussionId)) sections.add('conversations');
      if (kind === 'proofs' && onRow) sections.add('proofs');
    }
    for (const s of sections) this.stalePanel.add(s);
    this.refreshPanel();
  }

  /** Rows changed: the open panel's cell history, when its row is among them. */
  private panelConcerns(rowIds: number[], sections: PanelSection[]): void {
    const open = this.ctx.rowPanel?.();
    if (!open || !rowIds.includes(open.rowId)) return;
    for (const s of sections) this.stalePanel.add(s);
    this.refreshPanel();
  }

  /** Reads again the panel's sections that are out of date, each once the person is not at work in it. */
  private refreshPanel(): void {
    if (this.panelTimer) return;
    const open = this.ctx.rowPanel?.();
    if (!open) {
      this.stalePanel.clear();
      return;
    }
    for (const s of [...this.stalePanel]) {
      if (open.panel.busy(s)) continue;
      this.stalePanel.delete(s);
      void open.panel.refreshSection(s);
    }
    if (this.stalePanel.size > 0) {
      this.panelTimer = setTimeout(() => {
        this.panelTimer = null;
        this.refreshPanel();
      }, 500);
    }
  }

  /** The stream is over for good: the message in words, no more edits, nobody shown as present. */
  private end(message: string): void {
    this.ended = true;
    this.es?.close();
    this.es = null;
    document.body.dataset.live = 'ended';
    this.banner.textContent = message;
    this.banner.hidden = false;
    this.presence.clear();
    const { model, grid } = this.ctx;
    model.apply({ kind: 'meta', sheet: { accessLevel: 'VIEWER' } });
    grid.el.readonly = true;
  }
}
