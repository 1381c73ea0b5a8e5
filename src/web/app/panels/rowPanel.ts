import './rowPanel.css';
import { h, confirmDialog, formatTime } from '../dom.ts';
import { messageOf } from '../api.ts';
import { atLeast, personName, type ApiClient, type Person } from './access.ts';

/**
 * The row panel: what hangs off one row of a sheet, beside the grid. Four sections, each read
 * from the API when the panel opens: the row's attachments (upload, download, attach a new
 * version, delete), its conversations (start one, reply, edit or delete one's own comment), the
 * focused cell's history and the row's proof. Only what the person's access level allows is
 * offered (an EDITOR attaches files, a COMMENTER comments, a VIEWER reads); a refusal is shown
 * in the section in the catalogue's words.
 */

export interface RowPanelOptions {
  sheetId: number;
  rowId: number;
  /** The focused cell's column: its history is shown (none: no history section). */
  columnId?: number | null;
  /** The person's access level on the sheet (Get Sheet's accessLevel, with accessApiLevel=1). */
  access: string;
  /** The signed-in person (their own comments may be edited and deleted). */
  user: { email: string };
  api: ApiClient;
  /** A name for the row in the panel's title, e.g. its primary value ("Row 3" by default). */
  rowLabel?: string;
  /** Called when the panel closes itself (its Close button or Escape). */
  onClose?: () => void;
  /**
   * Whether the panel takes the keyboard focus once read (true by default: opened by its button
   * or shortcut). Not when it follows the grid's focused row: the person goes on in the grid.
   */
  takeFocus?: boolean;
}

export interface RowPanel {
  /** The panel's element (an <aside> inside host). */
  element: HTMLElement;
  /** Shows another cell of the same row (its history). */
  focusCell(columnId: number | null): Promise<void>;
  /** Reads everything again. */
  refresh(): Promise<void>;
  /** Reads one section again (someone else changed what it shows). */
  refreshSection(name: PanelSection): Promise<void>;
  /** Whether the person is at work in a section (typing, the keyboard focus in it, an action under way): its refresh waits. */
  busy(name: PanelSection): boolean;
  close(): void;
}

export type PanelSection = 'attachments' | 'conversations' | 'history' | 'proofs';

interface Attachment { id: number; name: string; attachmentType: string; mimeType?: string; sizeInKb?: number; createdAt?: string; createdBy?: Person; url?: string }
interface Comment { id: number; text: string; createdAt?: string; modifiedAt?: string; createdBy?: Person }
interface Discussion { id: number; title?: string; comments?: Comment[]; commentCount?: number }
interface HistoryEntry { displayValue?: string; value?: unknown; modifiedAt?: string; modifiedBy?: Person }
interface Proof { id: number; originalId: number; name?: string; proofType?: string; version?: number; isCompleted?: boolean; lastUpdatedAt?: string; lastUpdatedBy?: Person; attachments?: Attachment[] }
interface Page<T> { data: T[] }

const ALL = { includeAll: true } as const;

export async function openRowPanel(host: HTMLElement, o: RowPanelOptions): Promise<RowPanel> {
  const { api, sheetId, rowId } = o;
  const s = `/sheets/${sheetId}`;
  const canEdit = atLeast(o.access, 'EDITOR');
  const canComment = atLeast(o.access, 'COMMENTER');
  const isAdmin = atLeast(o.access, 'ADMIN');
  const me = o.user.email.toLowerCase();
  const mine = (p: Person | undefined) => (p?.email ?? '').toLowerCase() === me;
  let columnId = o.columnId ?? null;

  const title = h('h2', { id: `row-panel-title-${rowId}`, class: 'row-panel-title' }, o.rowLabel ?? 'Row');
  const close = h('button', { type: 'button', class: 'secondary row-panel-close', 'aria-label': 'Close the row panel' }, '×');
  const attachments = section('Attachments', 'attachments');
  const conversations = section('Conversations', 'conversations');
  const history = section('Cell history', 'history');
  const proofs = section('Proof', 'proofs');
  const panel = h('aside', { class: 'row-panel', 'aria-labelledby': title.id, tabindex: '-1' },
    h('header', { class: 'row-panel-head' }, title, close), attachments.el, conversations.el, history.el, proofs.el);
  host.append(panel);

  const doClose = () => {
    panel.remove();
    o.onClose?.();
  };
  close.addEventListener('click', doClose);
  // Escape closes the panel, but not while a comment being written would be lost
  panel.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Escape') return;
    const t = ev.target;
    if ((t instanceof HTMLTextAreaElement || t instanceof HTMLInputElement) && t.value.trim() !== '') return;
    ev.preventDefault();
    doClose();
  });

  /** Runs an action of a section; a refusal is shown there in plain words. */
  async function act(sec: Section, fn: () => Promise<unknown>, then: () => Promise<void>): Promise<void> {
    sec.error('');
    sec.el.setAttribute('aria-busy', 'true');
    try {
      await fn();
      await then();
    } catch (e) {
      sec.error(messageOf(e));
    } finally {
      sec.el.removeAttribute('aria-busy');
      // the section was drawn again: the keyboard focus stays in it (not lost to the page)
      if (panel.isConnected && (document.activeElement === document.body || !document.activeElement?.isConnected)) sec.focusTarget().focus();
    }
  }

  /** A file chooser behind a button (the input stays hidden; the button names what it does). */
  function fileButton(label: string, onFile: (f: File) => void, aria?: string): HTMLElement {
    const input = h('input', { type: 'file', class: 'visually-hidden', tabindex: '-1', 'aria-hidden': 'true' });
    const btn = h('button', { type: 'button', class: 'secondary small', 'aria-label': aria ?? label }, label);
    btn.addEventListener('click', () => input.click());
    input.addEventListener('change', () => {
      const f = input.files?.[0];
      input.value = '';
      if (f) onFile(f);
    });
    return h('span', { class: 'file-button' }, btn, input);
  }

  // ---- attachments

  async function loadAttachments(): Promise<void> {
    const list = (await api.get<Page<Attachment>>(`${s}/rows/${rowId}/attachments`, ALL)).data;
    const ul = h('ul', { class: 'panel-list', 'aria-label': 'Attachments of this row' });
    for (const a of list) {
      const download = h('button', { type: 'button', class: 'link', 'aria-label': `Download ${a.name}` }, a.name);
      download.addEventListener('click', () => void act(attachments, async () => {
        const full = await api.get<Attachment>(`${s}/attachments/${a.id}`);
        if (!full.url) throw new Error('no url');
        const link = h('a', { href: full.url, download: a.name, rel: 'noopener', target: a.attachmentType === 'FILE' ? '_self' : '_blank' });
        document.body.append(link);
        link.click();
        link.remove();
      }, async () => undefined));
      const meta = [a.attachmentType !== 'FILE' ? a.attachmentType.toLowerCase() : a.sizeInKb !== undefined ? `${a.sizeInKb} KB` : '', personName(a.createdBy), formatTime(a.createdAt)].filter(Boolean).join(' · ');
      const actions = h('span', { class: 'panel-actions' });
      if (canEdit && a.attachmentType === 'FILE') {
        actions.append(fileButton('New version', (f) => void act(attachments, () => api.upload(`${s}/attachments/${a.id}/versions`, f, f.name), loadAttachments), `Attach a new version of ${a.name}`));
      }
      if (canEdit) {
        const del = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Delete ${a.name}` }, 'Delete');
        del.addEventListener('click', async () => {
          if (await confirmDialog('Delete attachment', `Delete ${a.name} and all its versions?`)) void act(attachments, () => api.del(`${s}/attachments/${a.id}/versions`), loadAttachments);
        });
        actions.append(del);
      }
      ul.append(h('li', { class: 'panel-item' }, h('div', {}, download), h('div', { class: 'note' }, meta), actions));
    }
    const body: Node[] = [list.length === 0 ? h('p', { class: 'note' }, 'No attachments.') : ul];
    if (canEdit) body.push(fileButton('Attach a file', (f) => void act(attachments, () => api.upload(`${s}/rows/${rowId}/attachments`, f, f.name), loadAttachments)));
    attachments.fill(body);
  }

  // ---- conversations

  function commentForm(label: string, submit: string, initial: string, onSubmit: (text: string) => Promise<unknown>, onCancel?: () => void): HTMLFormElement {
    const id = `c-${Math.random().toString(36).slice(2)}`;
    const ta = h('textarea', { id, rows: '2', required: true, maxlength: '4000', placeholder: `${label}…` });
    ta.value = initial;
    const form = h('form', { class: 'comment-form' }, h('label', { for: id, class: 'visually-hidden' }, label), ta);
    const actions = h('div', { class: 'panel-actions' }, h('button', { type: 'submit', class: 'small' }, submit));
    if (onCancel) {
      const cancel = h('button', { type: 'button', class: 'secondary small' }, 'Cancel');
      cancel.addEventListener('click', onCancel);
      actions.append(cancel);
    }
    form.append(actions);
    ta.setAttribute('aria-label', label);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const text = ta.value.trim();
      if (text === '') return;
      void act(conversations, () => onSubmit(text), loadConversations);
    });
    return form;
  }

  function commentItem(c: Comment): HTMLElement {
    const li = h('li', { class: 'comment', 'data-comment-id': String(c.id) });
    const edited = c.modifiedAt && c.createdAt && c.modifiedAt !== c.createdAt ? ' (edited)' : '';
    const head = h('div', { class: 'note' }, `${personName(c.createdBy)} · ${formatTime(c.createdAt)}${edited}`);
    const text = h('p', { class: 'comment-text' }, c.text);
    const actions = h('span', { class: 'panel-actions' });
    if (canComment && mine(c.createdBy)) {
      const edit = h('button', { type: 'button', class: 'link small', 'aria-label': 'Edit my comment' }, 'Edit');
      edit.addEventListener('click', () => {
        const form = commentForm('Edit my comment', 'Save', c.text, (t) => api.put(`${s}/comments/${c.id}`, { text: t }), () => form.replaceWith(text));
        text.replaceWith(form);
        form.querySelector('textarea')?.focus();
      });
      actions.append(edit);
    }
    if (canComment && (mine(c.createdBy) || isAdmin)) {
      const del = h('button', { type: 'button', class: 'link small', 'aria-label': mine(c.createdBy) ? 'Delete my comment' : `Delete the comment of ${personName(c.createdBy)}` }, 'Delete');
      del.addEventListener('click', async () => {
        if (await confirmDialog('Delete comment', 'Delete this comment?')) void act(conversations, () => api.del(`${s}/comments/${c.id}`), loadConversations);
      });
      actions.append(del);
    }
    li.append(head, text, actions);
    return li;
  }

  async function loadConversations(): Promise<void> {
    const list = (await api.get<Page<Discussion>>(`${s}/rows/${rowId}/discussions`, { include: 'comments', ...ALL })).data;
    const body: Node[] = [];
    if (list.length === 0) body.push(h('p', { class: 'note' }, 'No conversations yet.'));
    for (const d of list) {
      const thread = h('ul', { class: 'comments', 'aria-label': `Conversation: ${d.title ?? ''}` });
      for (const c of d.comments ?? []) thread.append(commentItem(c));
      const art = h('article', { class: 'thread', 'data-discussion-id': String(d.id) }, thread);
      if (canComment) art.append(commentForm('Reply', 'Reply', '', (t) => api.post(`${s}/discussions/${d.id}/comments`, { text: t })));
      body.push(art);
    }
    if (canComment) body.push(commentForm('New comment on this row', 'Comment', '', (t) => api.post(`${s}/rows/${rowId}/discussions`, { comment: { text: t } })));
    conversations.fill(body);
  }

  // ---- the focused cell's history

  async function loadHistory(): Promise<void> {
    if (columnId === null) {
      history.fill([h('p', { class: 'note' }, 'Select a cell of this row to see its history.')]);
      return;
    }
    const list = (await api.get<Page<HistoryEntry>>(`${s}/rows/${rowId}/columns/${columnId}/history`, ALL)).data;
    if (list.length === 0) {
      history.fill([h('p', { class: 'note' }, 'This cell has never been written.')]);
      return;
    }
    const ol = h('ol', { class: 'panel-list', 'aria-label': 'Cell history, newest first' });
    for (const e of list) {
      const shown = e.displayValue ?? (e.value === undefined || e.value === null ? '' : String(e.value));
      ol.append(h('li', { class: 'panel-item' }, h('div', {}, shown === '' ? h('em', {}, '(empty)') : shown), h('div', { class: 'note' }, `${personName(e.modifiedBy)} · ${formatTime(e.modifiedAt)}`)));
    }
    history.fill([ol]);
  }

  // ---- the row's proof

  async function loadProofs(): Promise<void> {
    const list = (await api.get<Page<Proof>>(`${s}/rows/${rowId}/proofs`, ALL)).data;
    if (list.length === 0) {
      proofs.fill([h('p', { class: 'note' }, 'No proof on this row.')]);
      return;
    }
    const body: Node[] = [];
    for (const p of list) {
      const full = await api.get<Proof>(`${s}/proofs/${p.id}`, { include: 'attachments' });
      const files = h('ul', { class: 'panel-list', 'aria-label': `Files of ${full.name ?? 'the proof'}` });
      for (const a of full.attachments ?? []) {
        const dl = h('button', { type: 'button', class: 'link', 'aria-label': `Download ${a.name}` }, a.name);
        dl.addEventListener('click', () => void act(proofs, async () => {
          const f = await api.get<Attachment>(`${s}/attachments/${a.id}`);
          if (f.url) window.open(f.url, '_blank', 'noopener');
        }, async () => undefined));
        files.append(h('li', {}, dl));
      }
      const status = full.isCompleted ? 'complete' : 'open';
      const actions = h('span', { class: 'panel-actions' });
      if (canEdit) {
        const toggle = h('button', { type: 'button', class: 'secondary small' }, full.isCompleted ? 'Reopen' : 'Mark complete');
        toggle.addEventListener('click', () => void act(proofs, () => api.put(`${s}/proofs/${p.id}`, { isCompleted: !full.isCompleted }), loadProofs));
        actions.append(toggle);
      }
      body.push(h('div', { class: 'proof' },
        h('div', {}, h('strong', {}, full.name ?? 'Proof'), ` · version ${full.version ?? 1} · ${status}`),
        h('div', { class: 'note' }, `${personName(full.lastUpdatedBy)} · ${formatTime(full.lastUpdatedAt)}`), files, actions));
    }
    proofs.fill(body);
  }

  const load = (sec: Section, fn: () => Promise<void>) => fn().catch((e: unknown) => sec.fill([h('p', { class: 'error', role: 'alert' }, messageOf(e))]));
  const refresh = async () => {
    await Promise.all([load(attachments, loadAttachments), load(conversations, loadConversations), load(history, loadHistory), load(proofs, loadProofs)]);
  };
  const sections = { attachments: [attachments, loadAttachments], conversations: [conversations, loadConversations], history: [history, loadHistory], proofs: [proofs, loadProofs] } as const;
  await refresh();
  if (o.takeFocus ?? true) panel.focus();

  return {
    element: panel,
    focusCell: async (id) => {
      columnId = id;
      await load(history, loadHistory);
    },
    refresh,
    refreshSection: async (name) => {
      const [sec, fn] = sections[name];
      await load(sec, fn);
    },
    busy: (name) => {
      const el = sections[name][0].el;
      return el.contains(document.activeElement) || [...el.querySelectorAll('textarea')].some((t) => t.value.trim() !== '') || el.hasAttribute('aria-busy');
    },
    close: doClose,
  };
}

interface Section {
  el: HTMLElement;
  fill(nodes: Node[]): void;
  error(text: string): void;
  /** Where the focus goes after the section is drawn again: its new-item field, else its heading. */
  focusTarget(): HTMLElement;
}

function section(label: string, key: string): Section {
  const id = `row-panel-${key}`;
  const body = h('div', { class: 'row-panel-body' }, h('p', { class: 'note' }, 'Loading…'));
  const err = h('p', { class: 'error', role: 'alert', hidden: true });
  const heading = h('h3', { id, tabindex: '-1' }, label);
  const el = h('section', { class: `row-panel-section row-panel-${key}`, 'aria-labelledby': id }, heading, err, body);
  return {
    el,
    focusTarget: () => {
      const fields = body.querySelectorAll<HTMLElement>('textarea');
      return fields[fields.length - 1] ?? heading;
    },
    fill: (nodes) => body.replaceChildren(...nodes),
    error: (text) => {
      err.textContent = text;
      err.hidden = text === '';
    },
  };
}
