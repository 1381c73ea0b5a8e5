import { api } from '../api.ts';
import { h } from '../dom.ts';
import type { SheetPageContext } from './page.ts';
import type { Peer } from './grid.ts';

/** One person with the sheet open, as the change stream's `presence` event lists them. */
export interface Viewer {
  id: string;
  userId: number;
  name: string;
  email: string;
  rowId: number | null;
  columnId: number | null;
}

/** Colours of other people (outline and initials), told apart from the page's blue focus and from each other. */
const COLORS = ['#c2185b', '#2e7d32', '#b45309', '#6a1b9a', '#00838f', '#c62828', '#4e342e', '#ad1457'];

/** How long the page waits after the focus moved before it reports it (moving with the arrow keys sends one report). */
const REPORT_AFTER_MS = 250;

export function colorOf(userId: number): string {
  return COLORS[Math.abs(userId) % COLORS.length]!;
}

/** "Ada Lovelace" → "AL"; "bob.tester@example.com" → "BT"; "bob@example.com" → "BO". */
export function initialsOf(name: string, email: string): string {
  const base = name && name !== email ? name : email.split('@')[0] ?? '';
  const words = base.split(/[\s._-]+/).filter(Boolean);
  if (words.length >= 2) return (words[0]![0]! + words[words.length - 1]![0]!).toUpperCase();
  return (words[0] ?? '?').slice(0, 2).toUpperCase();
}

/**
 * Presence on the sheet page: the initials of everyone else who has the sheet open (each with
 * the person's name, or email when they have none, as its accessible name and tooltip), and an
 * outline of their colour on the cell each of them has focused. The page's own focused cell is
 * reported to the server (POST .../presence, by the stream's presenceId) a moment after it
 * moves. The open change stream is what keeps the person present: the server drops them when it
 * closes (a closed tab, a lost connection; in a cluster within SHEETD_PRESENCE_TTL_MS), so no
 * other heartbeat is sent.
 */
export class PresenceView {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private presenceId: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private reported = '';

  constructor(private readonly ctx: SheetPageContext) {
    this.list = h('ul', { class: 'presence-list' });
    this.el = h('div', { class: 'presence', role: 'group', 'aria-label': 'Others with this sheet open', hidden: true }, this.list);
    ctx.grid.onFocus(() => this.focusMoved());
  }

  /** The change stream (re)opened: its presence id; the focused cell is reported at once. */
  connected(presenceId: string): void {
    this.presenceId = presenceId;
    this.reported = '';
    this.report();
  }

  private focusMoved(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.report(), REPORT_AFTER_MS);
  }

  private report(): void {
    this.timer = null;
    if (!this.presenceId) return;
    const f = this.ctx.grid.focus;
    const body = { presenceId: this.presenceId, rowId: f?.rowId ?? null, columnId: f?.columnId ?? null };
    const text = JSON.stringify(body);
    if (text === this.reported) return;
    this.reported = text;
    // presence is a courtesy: a failed report is not the person's problem (the next one may pass)
    api.post(`/sheetd/sheets/${this.ctx.sheetId}/presence`, body).catch(() => {
      this.reported = '';
    });
  }

  /** The stream's `presence` event: who has the sheet open now. */
  show(viewers: Viewer[], count: number): void {
    const others = viewers.filter((v) => v.id !== this.presenceId && v.userId !== this.ctx.userId);
    // one person with the sheet open twice is shown once (their outlines both)
    const people = new Map<number, Viewer>();
    for (const v of others) if (!people.has(v.userId)) people.set(v.userId, v);
    const items = [...people.values()].map((v) => {
      const label = v.name || v.email;
      return h('li', {}, h('span', { class: 'presence-avatar', role: 'img', 'aria-label': label, title: label, style: `background-color: ${colorOf(v.userId)}`, 'data-user-id': String(v.userId) }, initialsOf(v.name, v.email)));
    });
    // the server lists at most 50 people and counts all of them (this page among them)
    const unlisted = count - viewers.length;
    if (unlisted > 0) items.push(h('li', {}, h('span', { class: 'presence-more', title: `${unlisted} more`, 'aria-label': `${unlisted} more people` }, `+${unlisted}`)));
    this.list.replaceChildren(...items);
    this.el.hidden = items.length === 0;
    const peers = new Map<string, Peer>();
    for (const v of others) {
      if (v.rowId === null || v.columnId === null) continue;
      const k = `${v.rowId}:${v.columnId}`;
      const label = v.name || v.email;
      const had = peers.get(k);
      if (had) {
        if (!had.names.includes(label)) had.names.push(label);
      } else peers.set(k, { color: colorOf(v.userId), names: [label] });
    }
    this.ctx.grid.setPeers(peers);
  }

  /** The stream ended for good: nobody is shown any more. */
  clear(): void {
    this.presenceId = null;
    this.show([], 0);
  }
}
