import { api, showError, showMessage, type Page, type Result } from '../api.ts';
import { dialog, menuDialog, h } from '../dom.ts';
import { Problem, formDialog, input, refusalText, textField } from './forms.ts';
import { everyone, nameOf, type Person } from './model.ts';

/**
 * The Groups section of People: the organization's groups (List Groups), new group, rename
 * (name and description), delete (confirmed), and a group's members (Get Group; Add Group
 * Members by address, Remove Group Member). Public /2.0/groups calls; refusals in the dialog.
 */

interface Group {
  id: number;
  name: string;
  description?: string;
  owner?: string;
  ownerId?: number;
}

interface Member {
  id: number;
  email: string;
  firstName?: string;
  lastName?: string;
}

export async function mountGroups(host: HTMLElement): Promise<void> {
  const newButton = h('button', { type: 'button', class: 'secondary' }, 'New group');
  const list = h('div', { class: 'groups-list' });
  host.replaceChildren(h('div', { class: 'page-head' }, h('h2', { id: 'groups-title' }, 'Groups'), newButton), list);
  newButton.addEventListener('click', () => void create());

  async function load(focusGroup: number | null = null): Promise<void> {
    try {
      const r = await api.get<Page<Group>>('/groups', { includeAll: true });
      draw(r.data);
      const again = focusGroup === null ? null : list.querySelector<HTMLElement>(`tr[data-group-id="${focusGroup}"] .row-actions button`);
      again?.focus();
    } catch (e) {
      showError(e);
    }
  }

  function draw(groups: Group[]): void {
    if (groups.length === 0) {
      list.replaceChildren(h('p', { class: 'note' }, 'There are no groups yet. A group lets you share sheets with several people at once.'));
      return;
    }
    const table = h('table', { class: 'items groups' }, h('caption', { class: 'visually-hidden' }, 'Groups'));
    table.append(h('thead', {}, h('tr', {}, ...['Name', 'Description', 'Owner'].map((t) => h('th', { scope: 'col' }, t)), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))));
    const body = h('tbody');
    for (const g of [...groups].sort((a, b) => a.name.localeCompare(b.name))) {
      const more = h('button', { type: 'button', class: 'secondary small', 'aria-haspopup': 'dialog', 'aria-label': `Actions for group ${g.name}` }, 'Actions…');
      more.addEventListener('click', () => void menu(g, more));
      body.append(h('tr', { 'data-group-id': g.id }, h('td', { class: 'name' }, g.name), h('td', {}, g.description ?? ''), h('td', {}, g.owner ?? ''), h('td', { class: 'row-actions' }, more)));
    }
    table.append(body);
    list.replaceChildren(table);
  }

  const fields = (g: Partial<Group>) => (form: HTMLFormElement) => {
    form.append(...textField('name', 'Group name', g.name ?? '', { required: true, autocomplete: 'off' }), ...textField('description', 'Description', g.description ?? '', { autocomplete: 'off' }));
  };
  const values = (form: HTMLFormElement) => {
    const name = input(form, 'name').value.trim();
    if (!name) throw new Problem('Type a name for the group.');
    return { name, description: input(form, 'description').value.trim() };
  };

  async function create(): Promise<void> {
    const made = await formDialog<Group>('New group', 'Create', fields({}), async (form) => (await api.post<Result<Group>>('/groups', values(form))).result);
    if (!made) {
      newButton.focus();
      return;
    }
    showMessage(`Group ${made.name} created.`, 'note');
    await load(made.id);
  }

  async function menu(g: Group, opener: HTMLElement): Promise<void> {
    const pick = await menuDialog(`Group ${g.name}`, [['members', 'Members…'], ['rename', 'Rename…'], ['delete', 'Delete…']] as const);
    if (pick === 'members') await members(g);
    else if (pick === 'rename') {
      const saved = await formDialog<Group>(`Rename group ${g.name}`, 'Save', fields(g), async (form) => (await api.put<Result<Group>>(`/groups/${g.id}`, values(form))).result);
      if (saved) showMessage(`Group ${saved.name} saved.`, 'note');
    } else if (pick === 'delete') {
      const gone = await formDialog<true>(`Delete group ${g.name}`, 'Delete', (form) => {
        form.append(h('p', {}, `Delete the group ${g.name}? Its members lose what was shared with them through it.`));
      }, async () => {
        await api.del(`/groups/${g.id}`);
        return true;
      }, { danger: true });
      if (gone) {
        showMessage(`Group ${g.name} deleted.`, 'note');
        await load();
        newButton.focus();
        return;
      }
    }
    await load();
    (list.querySelector<HTMLElement>(`tr[data-group-id="${g.id}"] .row-actions button`) ?? opener).focus();
  }

  /** The members of a group: remove one, add someone active who is not in it. */
  async function members(g: Group): Promise<void> {
    let people: Person[];
    try {
      people = (await everyone()).filter((p) => p.status === 'ACTIVE');
    } catch (e) {
      showError(e);
      return;
    }
    await dialog<true>(`Members of ${g.name}`, (body, done) => {
      const error = h('p', { class: 'error', role: 'alert', hidden: true });
      const listHost = h('div', { class: 'member-list' });
      const pick = h('select', { id: 'p-member', name: 'member' });
      const addForm = h('form', { class: 'member-add' }, h('label', { for: 'p-member' }, 'Add a person'), h('div', { class: 'link-line' }, pick, h('button', { type: 'submit' }, 'Add to group')));
      const close = h('button', { type: 'button' }, 'Done');
      close.addEventListener('click', () => done(true));
      body.append(listHost, addForm, error, h('div', { class: 'modal-actions' }, close));

      const fail = (e: unknown) => {
        error.textContent = refusalText(e);
        error.hidden = false;
      };
      const refresh = async (focus: 'add' | 'list' = 'list') => {
        const detail = await api.get<Group & { members: Member[] }>(`/groups/${g.id}`);
        const ids = new Set(detail.members.map((m) => m.id));
        listHost.replaceChildren(detail.members.length === 0 ? h('p', { class: 'note' }, 'Nobody is in this group yet.')
          : h('ul', { class: 'members', 'aria-label': `Members of ${g.name}` }, ...detail.members.map((m) => {
            const b = h('button', { type: 'button', class: 'secondary small' }, 'Remove', h('span', { class: 'visually-hidden' }, ` ${nameOf(m)} from ${g.name}`));
            b.addEventListener('click', () => {
              error.hidden = true;
              api.del(`/groups/${g.id}/members/${m.id}`).then(() => refresh(), fail);
            });
            return h('li', {}, h('span', {}, `${nameOf(m)} (${m.email})`), b);
          })));
        const choices = people.filter((p) => !ids.has(p.id));
        pick.replaceChildren(...choices.map((p) => h('option', { value: p.email }, `${nameOf(p)} (${p.email})`)));
        addForm.hidden = choices.length === 0;
        if (focus === 'add' && !addForm.hidden) pick.focus();
        else (listHost.querySelector<HTMLElement>('button') ?? (addForm.hidden ? close : pick)).focus();
      };
      addForm.addEventListener('submit', (ev) => {
        ev.preventDefault();
        error.hidden = true;
        if (!pick.value) return;
        api.post(`/groups/${g.id}/members`, [{ email: pick.value }]).then(() => refresh('add'), fail);
      });
      refresh('add').catch(fail);
    });
  }

  await load();
}
