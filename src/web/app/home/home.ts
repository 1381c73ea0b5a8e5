import { api, showError, showMessage } from '../api.ts';
import { confirmDialog, menuDialog, formDialog, formatTime, h } from '../dom.ts';
import { openReportDialog } from '../reports/definitionDialog.ts';
import { openImportDialog } from './importDialog.ts';

/** The copy choices of sheets, folders and workspaces: everything but the shares (Copy's include), or the columns alone. */
const COPY_ALL = 'Everything: rows, attachments, conversations, filters, forms and rules';
const COPY_COLUMNS = 'Only the columns (no rows)';
const COPY_INCLUDE = 'data,attachments,discussions,filters,forms,rules,ruleRecipients,cellLinks';

/**
 * Home: the person's items as GET /2.0/home sees them (sheets, reports, dashboards, folders with
 * their contents, workspaces) and their favorites; a workspace opens in place (GET
 * /workspaces/{id}). Create, import (a CSV or Excel file), rename, move, copy, delete (confirmed), favorite; a search box over
 * the search API that opens a row where it is.
 */

type Kind = 'sheet' | 'report' | 'sight' | 'folder' | 'workspace';

interface Item {
  kind: Kind;
  id: number;
  name: string;
  accessLevel?: string;
  ownerId?: number;
  modifiedAt?: string;
  favorite?: boolean;
}

interface Contents {
  sheets?: Array<Record<string, unknown>>;
  reports?: Array<Record<string, unknown>>;
  sights?: Array<Record<string, unknown>>;
  folders?: Array<Record<string, unknown> & Contents>;
  workspaces?: Array<Record<string, unknown>>;
}

/** Where Home is: the top, a folder (by path through the tree) or a workspace. */
interface Place {
  kind: 'home' | 'folder' | 'workspace';
  id: number | null;
  name: string;
  contents: Contents;
  /** The person's access level in a workspace (and the folders in it); absent at Home and in its folders. */
  level?: string;
}

/** Things are made in (or imported, copied or moved into) a workspace by its admins (the API's 1004 otherwise). */
const MAKES = new Set(['ADMIN', 'OWNER']);

const LEVEL_NAMES: Record<string, string> = { VIEWER: 'viewer', COMMENTER: 'commenter', EDITOR: 'editor', EDITOR_SHARE: 'editor (can share)' };
const ICONS: Record<Kind, string> = { sheet: 'S', report: 'R', sight: 'D', folder: 'F', workspace: 'W' };
const KIND_NAMES: Record<Kind, string> = { sheet: 'Sheet', report: 'Report', sight: 'Dashboard', folder: 'Folder', workspace: 'Workspace' };

function itemsOf(c: Contents): Item[] {
  const pick = (kind: Kind, xs: Array<Record<string, unknown>> | undefined): Item[] =>
    (xs ?? []).map((x) => ({ kind, id: x.id as number, name: x.name as string, accessLevel: x.accessLevel as string | undefined, ownerId: x.ownerId as number | undefined, modifiedAt: x.modifiedAt as string | undefined, favorite: x.favorite === true }));
  return [...pick('workspace', c.workspaces), ...pick('folder', c.folders), ...pick('sheet', c.sheets), ...pick('report', c.reports), ...pick('sight', c.sights)];
}

function href(it: Item): string | null {
  if (it.kind === 'sheet') return `/sheets/${it.id}`;
  if (it.kind === 'report') return `/reports/${it.id}`;
  if (it.kind === 'sight') return `/dashboards/${it.id}`;
  return null;
}

export async function mountHome(root: HTMLElement): Promise<void> {
  const me = Number(root.dataset.userId);
  const state: { trail: Place[]; home: Contents | null; people: Map<number, string>; favorites: Item[] } = { trail: [], home: null, people: new Map(), favorites: [] };
  const search = h('input', { type: 'search', id: 'home-search', placeholder: 'Search sheets and rows', 'aria-label': 'Search', autocomplete: 'off' });
  const results = h('div', { class: 'search-results', role: 'region', 'aria-label': 'Search results', hidden: true });
  const crumbs = h('nav', { class: 'crumbs', 'aria-label': 'Location' });
  const actions = h('div', { class: 'home-actions' });
  const favs = h('section', { class: 'favorites', 'aria-labelledby': 'fav-title' });
  const list = h('section', { class: 'items-section', 'aria-labelledby': 'items-title' });
  const searchForm = h('form', { class: 'home-search', role: 'search' }, search, h('button', { type: 'submit' }, 'Search'));
  root.replaceChildren(h('div', { class: 'home-head' }, h('h1', {}, 'Home'), searchForm), results, crumbs, actions, favs, list);
  root.classList.add('home-page');

  searchForm.addEventListener('submit', (e) => {
    e.preventDefault();
    void runSearch(search.value.trim(), results);
  });

  const place = () => state.trail[state.trail.length - 1]!;

  async function load(): Promise<void> {
    try {
      const [home, favorites] = await Promise.all([
        api.get<Contents>('/home', { include: 'ownerInfo' }),
        api.get<{ data: Array<{ type: string; objectId: number }> }>('/favorites', { includeAll: true }).catch(() => ({ data: [] })),
      ]);
      state.home = home;
      if (state.people.size === 0) {
        const users = await api.get<{ data: Array<{ id: number; email: string; name?: string }> }>('/users', { includeAll: true }).catch(() => ({ data: [] }));
        for (const u of users.data) state.people.set(u.id, u.name || u.email);
      }
      // the place shown, refreshed
      const top: Place = { kind: 'home', id: null, name: 'Home', contents: home };
      const trail: Place[] = [top];
      for (const p of state.trail.slice(1)) {
        const inside = trail[trail.length - 1]!.contents;
        if (p.kind === 'workspace') {
          const ws = await api.get<Contents & { name: string; accessLevel?: string }>(`/workspaces/${p.id}`, { loadAll: true, include: 'ownerInfo' }).catch(() => null);
          if (!ws) break;
          trail.push({ kind: 'workspace', id: p.id, name: ws.name, contents: ws, ...(ws.accessLevel !== undefined ? { level: ws.accessLevel } : {}) });
        } else {
          const f = (inside.folders ?? []).find((x) => x.id === p.id);
          if (!f) break;
          const contents = f.sheets || f.folders ? f : await api.get<Contents>(`/folders/${p.id}`, { include: 'ownerInfo' }).catch(() => ({}));
          const level = trail[trail.length - 1]!.level;
          trail.push({ kind: 'folder', id: p.id, name: f.name as string, contents, ...(level !== undefined ? { level } : {}) });
        }
      }
      state.trail = trail;
      const favSet = new Set(favorites.data.map((f) => `${f.type}:${f.objectId}`));
      state.favorites = collect(home).filter((it) => favSet.has(`${it.kind === 'sight' ? 'sight' : it.kind}:${it.id}`)).map((it) => ({ ...it, favorite: true }));
      draw();
    } catch (e) {
      showError(e);
    }
  }

  function collect(c: Contents): Item[] {
    const out = itemsOf(c);
    for (const f of c.folders ?? []) out.push(...collect(f));
    return out;
  }

  function draw(): void {
    crumbs.replaceChildren(...state.trail.flatMap((p, i) => {
      const last = i === state.trail.length - 1;
      const el = last ? h('span', { 'aria-current': 'location' }, p.name) : h('a', { href: '#', onclick: ((e: Event) => {
        e.preventDefault();
        state.trail = state.trail.slice(0, i + 1);
        void load();
      }) as EventListener }, p.name);
      return i === 0 ? [el] : [h('span', { class: 'sep', 'aria-hidden': 'true' }, ' › '), el];
    }));
    const level = place().level;
    const newWorkspace = h('button', { type: 'button', class: 'secondary', onclick: (() => void createWorkspace()) as EventListener }, 'New workspace');
    if (level !== undefined && !MAKES.has(level)) {
      // a workspace shared below Admin: what is in it opens, nothing new goes in
      actions.replaceChildren(h('p', { class: 'note', role: 'note' }, `You have ${LEVEL_NAMES[level] ?? level.toLowerCase()} access to this workspace: its admins add sheets, reports, dashboards and folders.`), newWorkspace);
    } else {
      actions.replaceChildren(
        h('button', { type: 'button', onclick: (() => void createSheet()) as EventListener }, 'New sheet'),
        h('button', { type: 'button', class: 'secondary', 'aria-haspopup': 'dialog', onclick: ((e: Event) => void importSheet(e.currentTarget as HTMLElement)) as EventListener }, 'Import…'),
        h('button', { type: 'button', class: 'secondary', onclick: ((e: Event) => void createReport(e.currentTarget as HTMLElement)) as EventListener }, 'New report'),
        h('button', { type: 'button', class: 'secondary', onclick: (() => void createDashboard()) as EventListener }, 'New dashboard'),
        h('button', { type: 'button', class: 'secondary', onclick: (() => void createFolder()) as EventListener }, 'New folder'),
        newWorkspace,
      );
    }
    favs.replaceChildren();
    if (state.trail.length === 1 && state.favorites.length > 0) {
      favs.append(h('h2', { id: 'fav-title' }, 'Favorites'), table(state.favorites, 'Favorites'));
    }
    const items = itemsOf(place().contents);
    list.replaceChildren(h('h2', { id: 'items-title' }, state.trail.length === 1 ? 'Your items' : place().name));
    if (items.length === 0) list.append(h('p', { class: 'note' }, level !== undefined && !MAKES.has(level) ? 'Nothing here yet.' : 'Nothing here yet. Create a sheet to start.'));
    else list.append(table(items, state.trail.length === 1 ? 'Your items' : place().name));
  }

  function owner(it: Item): string {
    if (it.ownerId === undefined) return it.kind === 'folder' ? '' : it.accessLevel === 'OWNER' ? 'You' : '';
    if (it.ownerId === me) return 'You';
    return state.people.get(it.ownerId) ?? `User ${it.ownerId}`;
  }

  function table(items: Item[], caption: string): HTMLTableElement {
    const t = h('table', { class: 'items' }, h('caption', { class: 'visually-hidden' }, caption));
    t.append(h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Type'), h('th', { scope: 'col' }, 'Owner'), h('th', { scope: 'col' }, 'Modified'), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))));
    const body = h('tbody');
    for (const it of items) {
      const link = href(it);
      const name = link
        ? h('a', { href: link }, it.name)
        : h('a', { href: '#', onclick: ((e: Event) => {
          e.preventDefault();
          state.trail.push({ kind: it.kind === 'workspace' ? 'workspace' : 'folder', id: it.id, name: it.name, contents: {} });
          void load();
        }) as EventListener }, it.name);
      const star = h('button', { type: 'button', class: 'star', 'aria-pressed': it.favorite ? 'true' : 'false', 'aria-label': `${it.favorite ? 'Unfavorite' : 'Favorite'} ${it.name}`, title: it.favorite ? 'Remove from favorites' : 'Add to favorites' }, it.favorite ? '★' : '☆');
      star.addEventListener('click', () => void toggleFavorite(it));
      const more = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Actions for ${it.name}`, 'aria-haspopup': 'dialog' }, 'Actions…');
      more.addEventListener('click', () => void itemMenu(it, more));
      body.append(h('tr', { 'data-kind': it.kind, 'data-id': it.id },
        h('td', { class: 'name' }, h('span', { class: `icon icon-${it.kind}`, 'aria-hidden': 'true' }, ICONS[it.kind]), name),
        h('td', {}, KIND_NAMES[it.kind]),
        h('td', {}, owner(it)),
        h('td', {}, formatTime(it.modifiedAt)),
        h('td', { class: 'row-actions' }, star, more)));
    }
    t.append(body);
    return t;
  }

  /** Where new things go: the place shown. */
  function base(kind: 'sheets' | 'folders'): string {
    const p = place();
    if (p.kind === 'home') return kind === 'sheets' ? '/sheets' : '/home/folders';
    return `/${p.kind === 'folder' ? 'folders' : 'workspaces'}/${p.id}/${kind}`;
  }

  async function createSheet(): Promise<void> {
    const v = await formDialog('New sheet', [
      { name: 'name', label: 'Sheet name' },
      { name: 'columns', label: 'Columns (separated by commas; the first is the primary column)', value: 'Task, Status, Due date' },
    ], 'Create');
    if (!v?.name) return;
    const titles = v.columns!.split(',').map((s) => s.trim()).filter(Boolean);
    if (titles.length === 0) titles.push('Primary');
    const columns = titles.map((title, i) => ({ title, type: i > 0 && /date/i.test(title) ? 'DATE' : 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
    try {
      const res = await api.post<{ result: { id: number } }>(base('sheets'), { name: v.name, columns });
      location.href = `/sheets/${res.result.id}`;
    } catch (e) {
      showError(e);
    }
  }

  /** Import…: a CSV or Excel file made into a sheet in the place shown, which then opens. */
  async function importSheet(opener: HTMLElement): Promise<void> {
    const p = place();
    const id = await openImportDialog({ path: `${base('sheets')}/import`, title: p.kind === 'home' ? 'Import a sheet' : `Import a sheet into ${p.name}` });
    if (id === null) opener.focus();
    else location.href = `/sheets/${id}`;
  }

  /** New report: the definition dialog; the report goes to the place shown, then opens. */
  async function createReport(opener: HTMLElement): Promise<void> {
    const p = place();
    try {
      const id = await openReportDialog({ destination: p.kind === 'home' ? undefined : { destinationType: p.kind, destinationId: p.id! } });
      if (id === null) opener.focus();
      else location.href = `/reports/${id}`;
    } catch (e) {
      showError(e);
    }
  }

  /** A dashboard without widgets in the place shown (the extension's Create Dashboard), then its page to add them. */
  async function createDashboard(): Promise<void> {
    const v = await formDialog('New dashboard', [{ name: 'name', label: 'Dashboard name' }], 'Create');
    if (!v?.name) return;
    const p = place();
    const where = p.kind === 'home' ? {} : { destinationType: p.kind, destinationId: p.id };
    try {
      const res = await api.post<{ result: { id: number } }>('/sheetd/sights', { name: v.name, ...where });
      location.href = `/dashboards/${res.result.id}`;
    } catch (e) {
      showError(e);
    }
  }

  async function createFolder(): Promise<void> {
    const v = await formDialog('New folder', [{ name: 'name', label: 'Folder name' }], 'Create');
    if (!v?.name) return;
    try {
      await api.post(base('folders'), { name: v.name });
      showMessage(`Folder ${v.name} created.`, 'note');
      await load();
    } catch (e) {
      showError(e);
    }
  }

  async function createWorkspace(): Promise<void> {
    const v = await formDialog('New workspace', [{ name: 'name', label: 'Workspace name' }], 'Create');
    if (!v?.name) return;
    try {
      await api.post('/workspaces', { name: v.name });
      showMessage(`Workspace ${v.name} created.`, 'note');
      await load();
    } catch (e) {
      showError(e);
    }
  }

  function path(it: Item): string {
    return { sheet: `/sheets/${it.id}`, report: `/sheetd/reports/${it.id}`, sight: `/sights/${it.id}`, folder: `/folders/${it.id}`, workspace: `/workspaces/${it.id}` }[it.kind];
  }

  async function toggleFavorite(it: Item): Promise<void> {
    try {
      if (it.favorite) await api.del(`/favorites/${it.kind}`, { objectIds: it.id });
      else await api.post('/favorites', [{ type: it.kind, objectId: it.id }]);
      await load();
      document.querySelector<HTMLElement>(`tr[data-kind="${it.kind}"][data-id="${it.id}"] .star`)?.focus();
    } catch (e) {
      showError(e);
    }
  }

  /** Destinations for move and copy: Home, every folder of the tree, every workspace. */
  function destinations(): Array<{ label: string; type: string; id: number | null }> {
    const out: Array<{ label: string; type: string; id: number | null }> = [{ label: 'Home', type: 'home', id: null }];
    const walk = (c: Contents, prefix: string) => {
      for (const f of c.folders ?? []) {
        out.push({ label: `${prefix}${f.name as string}`, type: 'folder', id: f.id as number });
        walk(f, `${prefix}${f.name as string} › `);
      }
    };
    if (state.home) walk(state.home, '');
    for (const w of state.home?.workspaces ?? []) out.push({ label: `Workspace ${w.name as string}`, type: 'workspace', id: w.id as number });
    return out;
  }

  async function itemMenu(it: Item, opener: HTMLElement): Promise<void> {
    const canMove = it.kind === 'sheet' || it.kind === 'folder' || it.kind === 'sight';
    const canCopy = it.kind === 'sheet' || it.kind === 'folder' || it.kind === 'workspace' || it.kind === 'sight';
    const choices: Array<[string, string]> = [['open', 'Open'], ['rename', 'Rename'], ...(canMove ? [['move', 'Move to…'] as [string, string]] : []), ...(canCopy ? [['copy', 'Copy…'] as [string, string]] : []), ['fav', it.favorite ? 'Remove from favorites' : 'Add to favorites'], ['delete', 'Delete']];
    const pick = await menuDialog(`${KIND_NAMES[it.kind]} ${it.name}`, choices);
    if (pick === null) {
      opener.focus();
      return;
    }
    try {
      if (pick === 'open') {
        const link = href(it);
        if (link) location.href = link;
        else {
          state.trail.push({ kind: it.kind === 'workspace' ? 'workspace' : 'folder', id: it.id, name: it.name, contents: {} });
          await load();
        }
      } else if (pick === 'rename') {
        const v = await formDialog(`Rename ${it.name}`, [{ name: 'name', label: 'Name', value: it.name }], 'Rename');
        if (v?.name && v.name !== it.name) {
          await api.put(path(it), { name: v.name });
          await load();
        }
      } else if (pick === 'move' || pick === 'copy') {
        const dests = destinations().filter((d) => !(d.type === it.kind && d.id === it.id));
        const v = await formDialog(`${pick === 'move' ? 'Move' : 'Copy'} ${it.name}`, [
          { name: 'dest', label: 'To', options: dests.map((d) => d.label), value: dests[0]!.label },
          ...(pick === 'copy' ? [{ name: 'newName', label: 'Name of the copy', value: `Copy of ${it.name}` }] : []),
          ...(pick === 'copy' && it.kind !== 'sight' ? [{ name: 'what', label: 'What to copy', options: [COPY_ALL, COPY_COLUMNS], value: COPY_ALL }] : []),
        ], pick === 'move' ? 'Move' : 'Copy');
        if (!v) return;
        const d = dests.find((x) => x.label === v.dest)!;
        const body: Record<string, unknown> = { destinationType: d.type, destinationId: d.id };
        if (pick === 'copy') body.newName = v.newName;
        // Copy Sheet (and Folder, Workspace) copies only the columns unless `include` names more
        const query = pick === 'copy' && v.what === COPY_ALL ? { include: COPY_INCLUDE } : undefined;
        await api.post(`${path(it)}/${pick}`, body, query);
        showMessage(`${it.name} ${pick === 'move' ? 'moved' : 'copied'} to ${d.label}.`, 'note');
        await load();
      } else if (pick === 'fav') {
        await toggleFavorite(it);
      } else if (pick === 'delete') {
        if (await confirmDialog(`Delete ${it.name}`, `Delete the ${KIND_NAMES[it.kind].toLowerCase()} ${it.name}${it.kind === 'folder' || it.kind === 'workspace' ? ' and everything in it' : ''}?`)) {
          await api.del(path(it));
          showMessage(`${it.name} deleted.`, 'note');
          await load();
        }
      }
    } catch (e) {
      showError(e);
    }
  }

  state.trail = [{ kind: 'home', id: null, name: 'Home', contents: {} }];
  await load();
  document.body.dataset.homeReady = 'true';
}

interface SearchHit {
  text?: string;
  objectType?: string;
  objectId?: number;
  parentObjectType?: string;
  parentObjectId?: number;
  parentObjectName?: string;
  contextData?: string[];
}

async function runSearch(query: string, host: HTMLElement): Promise<void> {
  if (!query) {
    host.hidden = true;
    return;
  }
  try {
    const res = await api.get<{ results?: SearchHit[]; totalCount?: number }>('/search', { query });
    const hits = res.results ?? [];
    host.hidden = false;
    const list = h('ul', { class: 'hits' });
    for (const hit of hits) {
      const link = hitLink(hit);
      const label = `${hit.text ?? ''}`;
      const where = hit.parentObjectName ? ` in ${hit.parentObjectName}` : '';
      list.append(h('li', {}, link ? h('a', { href: link }, label) : h('span', {}, label), h('span', { class: 'note' }, ` ${hit.objectType ?? ''}${where}`)));
    }
    host.replaceChildren(h('h2', {}, `Search results for “${query}”`), hits.length ? list : h('p', { class: 'note' }, 'Nothing found.'));
    host.querySelector<HTMLElement>('a')?.focus();
  } catch (e) {
    showError(e);
  }
}

function hitLink(hit: SearchHit): string | null {
  switch (hit.objectType) {
    case 'sheet': return `/sheets/${hit.objectId}`;
    case 'report': return `/reports/${hit.objectId}`;
    case 'sight': return `/dashboards/${hit.objectId}`;
    case 'row': return hit.parentObjectId ? `/sheets/${hit.parentObjectId}?rowId=${hit.objectId}` : null;
    case 'discussion':
    case 'attachment':
      return hit.parentObjectType === 'sheet' && hit.parentObjectId ? `/sheets/${hit.parentObjectId}` : null;
    default: return null;
  }
}
