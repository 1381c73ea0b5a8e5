import './shareDialog.css';
import { h } from '../dom.ts';
import { messageOf } from '../api.ts';
import { atLeast, LEVEL_NAMES, type ApiClient, type Level } from '../panels/access.ts';

/**
 * The share dialog of a sheet, report, dashboard (sight) or workspace: who has access and at
 * which level, a form to share with a user, a group or any email address, and for each share a
 * level to change and a Remove button. Everything goes through the object's Share API
 * (`/{sheets|reports|sights|workspaces}/{id}/shares`, accessApiLevel=1 so COMMENTER is a
 * level). Only a person who may share (EDITOR_SHARE and up; ADMIN for a workspace) gets the
 * controls, and the levels offered are the ones that person may grant; any refusal is shown in
 * the catalogue's words.
 */

export type ShareObjectType = 'sheet' | 'report' | 'sight' | 'workspace';

export interface ShareDialogOptions {
  objectType: ShareObjectType;
  objectId: number;
  api: ApiClient;
  /** The object's name, for the dialog's title. */
  objectName?: string;
  /** The person's access level on the object (its accessLevel, with accessApiLevel=1). */
  access?: string;
  /** Called when the dialog closes. */
  onClose?: () => void;
}

interface Share { id: string; type: 'USER' | 'GROUP'; userId?: number; groupId?: number; email?: string; name?: string; accessLevel: string; scope?: string }
interface Group { id: number; name: string }
interface Person { email?: string; name?: string }
interface Page<T> { data: T[] }

const PATH: Record<ShareObjectType, string> = { sheet: 'sheets', report: 'reports', sight: 'sights', workspace: 'workspaces' };
const NOUN: Record<ShareObjectType, string> = { sheet: 'sheet', report: 'report', sight: 'dashboard', workspace: 'workspace' };

/** The levels a share of this kind of object may have (a dashboard has no EDITOR: 1166). */
function levelsFor(type: ShareObjectType): Level[] {
  const all: Level[] = ['VIEWER', 'COMMENTER', 'EDITOR', 'EDITOR_SHARE', 'ADMIN'];
  return type === 'sight' ? all.filter((l) => l !== 'EDITOR') : all;
}

export interface ShareDialog {
  element: HTMLDialogElement;
  close(): void;
  /** Settles when the dialog is closed. */
  closed: Promise<void>;
}

export function openShareDialog(host: HTMLElement, o: ShareDialogOptions): ShareDialog {
  const { api } = o;
  const base = `/${PATH[o.objectType]}/${o.objectId}/shares`;
  const q = { accessApiLevel: 1 } as const;
  const mayShare = o.access === undefined || atLeast(o.access, o.objectType === 'workspace' ? 'ADMIN' : 'EDITOR_SHARE');
  // a sharer grants at most its own level (ADMIN at most)
  const grantable = levelsFor(o.objectType).filter((l) => o.access === undefined || atLeast(o.access, l) || (l === 'ADMIN' && atLeast(o.access, 'ADMIN')));

  const titleId = `share-title-${o.objectId}`;
  const dlg = h('dialog', { class: 'modal share-dialog', 'aria-labelledby': titleId });
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const status = h('p', { class: 'note', role: 'status' });
  const list = h('ul', { class: 'share-list', 'aria-label': 'People and groups with access' });
  const closeBtn = h('button', { type: 'button', class: 'secondary' }, 'Done');
  dlg.append(h('h2', { id: titleId }, `Share ${o.objectName ? `“${o.objectName}”` : `this ${NOUN[o.objectType]}`}`));

  const showError = (e: unknown) => {
    error.textContent = e === '' ? '' : messageOf(e);
    error.hidden = e === '';
  };
  async function run(fn: () => Promise<unknown>, done: string): Promise<boolean> {
    showError('');
    status.textContent = '';
    dlg.setAttribute('aria-busy', 'true');
    try {
      await fn();
      status.textContent = done;
      await loadShares();
      return true;
    } catch (e) {
      showError(e);
      return false;
    } finally {
      dlg.removeAttribute('aria-busy');
    }
  }

  function levelSelect(id: string, value: string, label: string): HTMLSelectElement {
    const sel = h('select', { id, 'aria-label': label });
    const options = grantable.includes(value as Level) ? grantable : [...grantable, value as Level];
    for (const l of options) sel.append(h('option', { value: l, selected: l === value }, LEVEL_NAMES[l] ?? l));
    return sel;
  }

  // ---- the form: with whom, at which level
  const groups = new Map<string, number>();
  const who = h('input', { id: 'share-with', name: 'with', type: 'text', list: 'share-people', autocomplete: 'off', required: true, placeholder: 'name@example.com or a group' });
  const people = h('datalist', { id: 'share-people' });
  const level = levelSelect('share-level', grantable.includes('EDITOR') ? 'EDITOR' : grantable[0] ?? 'VIEWER', 'Access level');
  const form = h('form', { class: 'share-form' },
    h('label', { for: 'share-with' }, 'Share with (email address or group)'), who, people,
    h('label', { for: 'share-level' }, 'Access level'), level,
    h('div', { class: 'modal-actions' }, h('button', { type: 'submit' }, 'Share')));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = who.value.trim();
    if (text === '') return;
    const groupId = groups.get(text.toLowerCase());
    const body = groupId !== undefined ? { groupId, accessLevel: level.value } : { email: text, accessLevel: level.value };
    void run(() => api.post(base, body, q), `Shared with ${text}.`).then((ok) => {
      // not an address typed meanwhile (the list reloads after the status shows)
      if (ok && who.value.trim() === text) who.value = '';
    });
  });
  if (mayShare) dlg.append(form);
  else dlg.append(h('p', { class: 'note' }, `You can see who has access, but you may not share this ${NOUN[o.objectType]}.`));
  dlg.append(error, status, h('h3', {}, 'Who has access'), list, h('div', { class: 'modal-actions' }, closeBtn));

  // ---- the shares
  async function loadShares(): Promise<void> {
    // a sheet's or report's shares that come from its workspace are listed too (changed on the workspace)
    const withWorkspace = o.objectType === 'sheet' || o.objectType === 'report' ? { include: 'workspaceShares' } : {};
    const shares = (await api.get<Page<Share>>(base, { ...q, ...withWorkspace, includeAll: true })).data;
    const items = shares.map((sh) => {
      const label = sh.type === 'GROUP' ? `${sh.name ?? 'Group'} (group)` : sh.name && sh.email ? `${sh.name} <${sh.email}>` : (sh.email ?? sh.name ?? 'Someone');
      const li = h('li', { class: 'share', 'data-share-id': sh.id }, h('span', { class: 'share-who' }, label));
      const fixed = sh.accessLevel === 'OWNER' || sh.scope === 'WORKSPACE' || !mayShare || !atLeast(o.access ?? 'ADMIN', sh.accessLevel as Level);
      if (fixed) {
        li.append(h('span', { class: 'share-level' }, `${LEVEL_NAMES[sh.accessLevel as Level] ?? sh.accessLevel}${sh.scope === 'WORKSPACE' ? ' (from the workspace)' : ''}`));
        return li;
      }
      const sel = levelSelect(`share-level-${sh.id}`, sh.accessLevel, `Access level of ${label}`);
      sel.addEventListener('change', () => void run(() => api.put(`${base}/${sh.id}`, { accessLevel: sel.value }, q), `${label} is now ${LEVEL_NAMES[sel.value as Level] ?? sel.value}.`));
      const remove = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Remove ${label}` }, 'Remove');
      remove.addEventListener('click', () => void run(() => api.del(`${base}/${sh.id}`), `${label} no longer has access.`));
      li.append(sel, remove);
      return li;
    });
    list.replaceChildren(...items);
  }

  // suggestions: the organization's people and groups (whatever the person may read of them)
  async function loadSuggestions(): Promise<void> {
    const [users, contacts, grps] = await Promise.all([
      api.get<Page<Person>>('/users', { includeAll: true }).then((p) => p.data, () => [] as Person[]),
      api.get<Page<Person>>('/contacts', { includeAll: true }).then((p) => p.data, () => [] as Person[]),
      api.get<Page<Group>>('/groups', { includeAll: true }).then((p) => p.data, () => [] as Group[]),
    ]);
    const seen = new Set<string>();
    const opts: HTMLOptionElement[] = [];
    for (const p of [...users, ...contacts]) {
      const e = p.email?.toLowerCase();
      if (!e || seen.has(e)) continue;
      seen.add(e);
      opts.push(h('option', { value: p.email!, label: p.name ? `${p.name} <${p.email}>` : p.email! }));
    }
    for (const g of grps) {
      groups.set(g.name.toLowerCase(), g.id);
      opts.push(h('option', { value: g.name, label: `${g.name} (group)` }));
    }
    people.replaceChildren(...opts);
  }

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const finish = () => {
    if (!dlg.open && !dlg.isConnected) return;
    if (dlg.open) dlg.close();
    dlg.remove();
    o.onClose?.();
    resolveClosed();
  };
  closeBtn.addEventListener('click', finish);
  dlg.addEventListener('close', finish);
  host.append(dlg);
  dlg.showModal();
  (mayShare ? who : closeBtn).focus();
  list.append(h('li', { class: 'note' }, 'Loading…'));
  loadShares().catch(showError);
  if (mayShare) void loadSuggestions();
  return { element: dlg, close: finish, closed };
}
